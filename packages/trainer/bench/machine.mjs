// The machine line every benchmark prints: cores, CPU model, load, Node, and the tensor backend in use.
import { availableParallelism, cpus, loadavg } from 'node:os';

export function machineLine(backend) {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  return `machine: ${availableParallelism()} cores (${cpu}), load ${load}, Node ${process.version}${backend ? `, backend ${backend}` : ''}`;
}
