// Pages router: the same probe as the app router's client component (../app/client-probe.js),
// rendered on the server per request, then in the browser.
import ClientProbe from "../app/client-probe.js";

export function getServerSideProps() {
  return { props: {} };
}

export default function Legacy() {
  return (
    <main>
      <ClientProbe />
    </main>
  );
}
