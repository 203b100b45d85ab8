"use client";
// Starts the package's worker in the browser (createWorkerConversation(), as docs/worker.md shows)
// and shows what it computes; nothing of it runs on the server.
import { useEffect, useState } from "react";
import { createWorkerConversation } from "promptfold/worker";
import { summarizeInWorker } from "../conversation.js";
import events from "../session.js";

export default function ConversationProbe() {
  const [result, setResult] = useState(null);
  useEffect(() => {
    summarizeInWorker(createWorkerConversation, events).then((summary) => setResult(JSON.stringify(summary)));
  }, []);
  useEffect(() => {
    if (result) document.body.dataset.status = "done";
  }, [result]);
  return result && <pre id="result">{result}</pre>;
}
