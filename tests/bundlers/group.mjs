// Ending a server's whole process group and waiting until none of it is left. A dev server is
// a tree of processes (Next starts its server in a child); signalling the group returns at once,
// while its members may go on writing into the app's build folder for a while. The next setup
// in the same app folder deletes that folder, so it must not start before they are gone.
import { existsSync, readFileSync, readdirSync } from "node:fs";

/** The pids of the processes of group `pgid` that still run (zombies excluded: they write nothing). */
export function liveMembers(pgid) {
  if (!existsSync("/proc/self/stat")) {
    // No procfs (not Linux): the group counts as alive while it can be signalled.
    try {
      process.kill(-pgid, 0);
      return [pgid];
    } catch {
      return [];
    }
  }
  const members = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // it exited while we looked
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and ")", so read after the last ")".
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z" && state !== "X") members.push(Number(entry));
  }
  return members;
}

function signal(pgid, name) {
  try {
    process.kill(-pgid, name);
  } catch (error) {
    if (error.code !== "ESRCH") throw error;
  }
}

/** Resolves once group `pgid` has no live member, or with the pids still alive after `ms`. */
async function drained(pgid, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const alive = liveMembers(pgid);
    if (alive.length === 0 || Date.now() >= deadline) return alive;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Sends SIGTERM to process group `pgid` and waits until every member has exited; after `graceMs`
 * it sends SIGKILL and waits up to 5 s more. Throws when processes of the group still run then.
 */
export async function endGroup(pgid, graceMs = 15_000) {
  if (liveMembers(pgid).length === 0) return;
  signal(pgid, "SIGTERM");
  if ((await drained(pgid, graceMs)).length === 0) return;
  signal(pgid, "SIGKILL");
  const left = await drained(pgid, 5_000);
  if (left.length > 0) throw new Error(`process group ${pgid} still runs ${left.join(", ")} after SIGKILL`);
}
