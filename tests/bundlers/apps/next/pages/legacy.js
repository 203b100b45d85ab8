// Pages router: rendered on the server per request (#result), then #client-result in the browser.
import { useEffect, useState } from "react";
import { Conversation } from "promptfold";
import { summarize } from "../app/probe.js";
import events from "../app/session.js";

export function getServerSideProps() {
  return { props: {} };
}

export default function Legacy() {
  const [client, setClient] = useState(null);
  useEffect(() => {
    setClient(JSON.stringify(summarize(Conversation, events)));
  }, []);
  useEffect(() => {
    if (client) document.body.dataset.status = "done";
  }, [client]);
  return (
    <main>
      <pre id="result">{JSON.stringify(summarize(Conversation, events))}</pre>
      {client && <pre id="client-result">{client}</pre>}
    </main>
  );
}
