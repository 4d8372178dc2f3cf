import { readdirSync, readFileSync } from 'node:fs';

// Processes found by a mark in their environment (/proc/<pid>/environ, Linux): unlike a parent
// chain, the mark survives a process group of its own and re-parenting to init.

/** The pids of live processes (zombies left out) whose environment has `name=value`. */
export function markedProcesses(name: string, value: string): number[] {
  const needle = `\0${name}=${value}\0`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!`\0${readFileSync(`/proc/${entry}/environ`, 'latin1')}\0`.includes(needle)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      // A zombie has exited already; its parent has not collected it yet.
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** A process's command line, or '' when it is gone. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** Kills (SIGKILL) every live process marked `name=value`. */
export function killMarked(name: string, value: string): void {
  for (const pid of markedProcesses(name, value)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

/** The living members (zombies left out) of a process group, from /proc. */
export function groupMembers(group: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // After the command name: state, ppid, pgrp.
      if (fields[0] !== 'Z' && Number(fields[2]) === group) members.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return members;
}
