// App router: a client component that opens the probe session in the package's worker
// (promptfold/worker) once it runs in the browser.
import ConversationProbe from "./conversation-probe.js";

export default function Page() {
  return (
    <main>
      <ConversationProbe />
    </main>
  );
}
