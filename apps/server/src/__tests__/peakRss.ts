import { readdirSync, readFileSync } from 'node:fs';

/** The peak resident memory of a process and its descendants' largest (Linux /proc, VmHWM), in MB. */
export function peakRssMb(pid: number): number {
  let peak = 0;
  const visit = (p: number): void => {
    try {
      const status = readFileSync(`/proc/${p}/status`, 'utf8');
      const m = /VmHWM:\s+(\d+) kB/.exec(status);
      if (m) peak = Math.max(peak, Number(m[1]) / 1024);
      for (const t of readdirSync(`/proc/${p}/task`))
        for (const c of readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').split(' ').filter(Boolean))
          visit(Number(c));
    } catch {
      // gone meanwhile
    }
  };
  visit(pid);
  return Math.round(peak);
}
