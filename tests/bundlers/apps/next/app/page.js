// App router: a server component using the package at request time, and a client component that
// uses it in server rendering and again in the browser.
import { Conversation } from "promptfold";
import ClientProbe from "./client-probe.js";
import { summarize } from "./probe.js";
import events from "./session.js";

export const dynamic = "force-dynamic";

export default function Page() {
  return (
    <main>
      <pre id="server-result">{JSON.stringify(summarize(Conversation, events))}</pre>
      <ClientProbe />
    </main>
  );
}
