"use client";
// Rendered on the server (#result) and hydrated; #client-result is computed in the browser only.
// Used by both routers (app/page.js, pages/legacy.js).
import { useEffect, useState } from "react";
import { Conversation } from "promptfold";
import { summarize } from "./probe.js";
import events from "./session.js";

export default function ClientProbe() {
  const [client, setClient] = useState(null);
  useEffect(() => {
    setClient(JSON.stringify(summarize(Conversation, events)));
  }, []);
  useEffect(() => {
    if (client) document.body.dataset.status = "done";
  }, [client]);
  return (
    <>
      <pre id="result">{JSON.stringify(summarize(Conversation, events))}</pre>
      {client && <pre id="client-result">{client}</pre>}
    </>
  );
}
