// endGroup (group.mjs) against process groups shaped like a dev server's: a leader that exits at
// once on SIGTERM while its child goes on writing, and a child that ignores SIGTERM altogether.
//   node --test tests/bundlers/group.test.mjs
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { endGroup, liveMembers } from "./group.mjs";

/** Starts `script` under sh as the leader of a new group; resolves once it printed "ready"
 * (each script prints it once every process in it is set up). */
async function group(script) {
  const child = spawn("sh", ["-c", script], { detached: true, stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve, reject) => {
    child.once("error", reject);
    child.stdout.on("data", (chunk) => {
      if (chunk.toString().includes("ready")) resolve();
    });
  });
  return child;
}

/** Kills what is left of the child's group when the test ends, so a failing test cannot hang. */
function after(t, child) {
  t.after(() => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  });
}

test("waits for a child that outlives its leader", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "group-"));
  const log = join(dir, "log");
  // The child keeps appending for ~1 s after SIGTERM, as a dev server flushing its cache does.
  const child = await group(
    `sh -c 'trap "for i in 1 2 3 4 5; do echo w >> ${log}; sleep 0.2; done; exit 0" TERM; ` +
      `echo ready; while :; do sleep 0.05; done' & wait`,
  );
  after(t, child);
  await endGroup(child.pid);
  assert.deepEqual(liveMembers(child.pid), []);
  const written = readFileSync(log, "utf8");
  assert.equal(written, "w\n".repeat(5), "the child finished writing before endGroup returned");
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.equal(readFileSync(log, "utf8"), written, "nothing is written after endGroup returned");
});

test("kills a group that ignores SIGTERM once the grace time is over", async (t) => {
  const child = await group(`trap "" TERM; sh -c 'trap "" TERM; echo ready; while :; do sleep 0.05; done' & wait`);
  after(t, child);
  assert.ok(liveMembers(child.pid).length >= 2, "leader and child run");
  const start = Date.now();
  await endGroup(child.pid, 300);
  assert.ok(Date.now() - start >= 300, "SIGTERM alone did not end it");
  assert.deepEqual(liveMembers(child.pid), []);
});

test("a group that is already gone ends at once", async () => {
  const child = await group("echo ready");
  if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once("exit", resolve));
  await endGroup(child.pid);
  assert.deepEqual(liveMembers(child.pid), []);
});
