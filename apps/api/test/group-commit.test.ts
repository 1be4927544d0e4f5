import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../src/group-commit.js';

/** A writer whose writes finish when the test says so, recording each group it was given. */
function gatedWriter() {
  const groups: { key: string; inputs: number[] }[] = [];
  const gates: (() => void)[] = [];
  const write = async (key: string, inputs: number[]) => {
    groups.push({ key, inputs });
    await new Promise<void>((r) => gates.push(r));
    if (inputs.includes(-1)) throw new Error('refused');
    return inputs.map((i) => i * 10);
  };
  const release = async () => {
    gates.shift()!();
    await new Promise((r) => setTimeout(r, 0));
  };
  return { groups, write, release };
}

describe('GroupCommit', () => {
  it('sends a lone write at once and merges what arrives meanwhile into the next group, in order', async () => {
    const w = gatedWriter();
    const gc = new GroupCommit(w.write, () => 1, 10);
    const first = gc.submit('run', 1);
    const rest = [2, 3, 4].map((i) => gc.submit('run', i));
    expect(w.groups).toEqual([{ key: 'run', inputs: [1] }]);
    await w.release();
    expect(await first).toBe(10);
    expect(w.groups[1]).toEqual({ key: 'run', inputs: [2, 3, 4] });
    await w.release();
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
  });

  it('caps a group by weight but always takes one input, and keys never wait on each other', async () => {
    const w = gatedWriter();
    const gc = new GroupCommit(w.write, (i: number) => i, 5);
    const all = [gc.submit('a', 1), gc.submit('a', 9), gc.submit('a', 2), gc.submit('a', 3), gc.submit('b', 7)];
    expect(w.groups.map((g) => g.key)).toEqual(['a', 'b']);
    for (let i = 0; i < 4; i++) await w.release();
    expect(w.groups.filter((g) => g.key === 'a').map((g) => g.inputs)).toEqual([[1], [9], [2, 3]]);
    expect(await Promise.all(all)).toEqual([10, 90, 20, 30, 70]);
  });

  it('a failed write rejects its own group only, and the queue goes on', async () => {
    const w = gatedWriter();
    const gc = new GroupCommit(w.write, () => 1, 10);
    const first = gc.submit('run', 1);
    const bad = [gc.submit('run', -1), gc.submit('run', 2)].map((p) => p.then(String, (e: Error) => e.message));
    await w.release();
    const later = gc.submit('run', 3);
    await w.release();
    expect(await Promise.all(bad)).toEqual(['refused', 'refused']);
    await w.release();
    expect([await first, await later]).toEqual([10, 30]);
  });
});
