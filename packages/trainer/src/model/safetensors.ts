// Safetensors reader/writer. Hand-written: the format is an 8-byte length, a JSON header and raw
// little-endian buffers, and the npm `safetensors` package is an unmaintained 0.0.1.
import { readFileSync, writeFileSync } from 'node:fs';

export type SafeDtype = 'F32' | 'F16' | 'BF16' | 'I32' | 'I64' | 'U8';

export interface TensorData {
  shape: number[];
  /** Values as float32 (F32 and BF16/F16 upcast) or int32. */
  data: Float32Array | Int32Array;
  dtype: SafeDtype;
}

function bf16ToF32(src: Uint16Array): Float32Array {
  const out = new Uint32Array(src.length);
  for (let i = 0; i < src.length; i++) out[i] = src[i]! << 16;
  return new Float32Array(out.buffer);
}

function f16ToF32(src: Uint16Array): Float32Array {
  const out = new Float32Array(src.length);
  for (let i = 0; i < src.length; i++) {
    const h = src[i]!;
    const s = h & 0x8000 ? -1 : 1;
    const e = (h >> 10) & 0x1f;
    const f = h & 0x3ff;
    out[i] = e === 0 ? s * 2 ** -14 * (f / 1024) : e === 31 ? (f ? NaN : s * Infinity) : s * 2 ** (e - 15) * (1 + f / 1024);
  }
  return out;
}

/** Parse a .safetensors buffer into float32/int32 tensors (bf16 and f16 are upcast to float32). */
export function parseSafetensors(buf: Uint8Array): { tensors: Map<string, TensorData>; metadata: Record<string, string> } {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const headerLen = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + headerLen))) as Record<string, unknown>;
  const base = 8 + headerLen;
  const tensors = new Map<string, TensorData>();
  let metadata: Record<string, string> = {};
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') {
      metadata = entry as Record<string, string>;
      continue;
    }
    const { dtype, shape, data_offsets } = entry as { dtype: SafeDtype; shape: number[]; data_offsets: [number, number] };
    const bytes = buf.slice(base + data_offsets[0], base + data_offsets[1]); // copy: aligned buffer
    let data: Float32Array | Int32Array;
    if (dtype === 'F32') data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    else if (dtype === 'BF16') data = bf16ToF32(new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2));
    else if (dtype === 'F16') data = f16ToF32(new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2));
    else if (dtype === 'I32') data = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    else if (dtype === 'I64')
      data = Int32Array.from(new BigInt64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8), (v) => Number(v));
    else if (dtype === 'U8') data = Int32Array.from(bytes);
    else throw new Error(`unsupported safetensors dtype ${dtype as string} for ${name}`);
    tensors.set(name, { shape, data, dtype });
  }
  return { tensors, metadata };
}

export function readSafetensors(file: string): ReturnType<typeof parseSafetensors> {
  return parseSafetensors(readFileSync(file));
}

/** Serialise float32/int32 tensors (names sorted, 8-byte aligned header as the reference writer does). */
export function serializeSafetensors(
  tensors: Map<string, { shape: number[]; data: Float32Array | Int32Array }>,
  metadata: Record<string, string> = {},
): Uint8Array {
  const names = [...tensors.keys()].sort();
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length) header.__metadata__ = metadata;
  let offset = 0;
  for (const name of names) {
    const t = tensors.get(name)!;
    header[name] = {
      dtype: t.data instanceof Float32Array ? 'F32' : 'I32',
      shape: t.shape,
      data_offsets: [offset, offset + t.data.byteLength],
    };
    offset += t.data.byteLength;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((json.length + 8) % 8)) % 8);
  const headerBytes = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + headerBytes.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let pos = 8 + headerBytes.length;
  for (const name of names) {
    const d = tensors.get(name)!.data;
    out.set(new Uint8Array(d.buffer, d.byteOffset, d.byteLength), pos);
    pos += d.byteLength;
  }
  return out;
}

export function writeSafetensors(
  file: string,
  tensors: Map<string, { shape: number[]; data: Float32Array | Int32Array }>,
  metadata?: Record<string, string>,
): void {
  writeFileSync(file, serializeSafetensors(tensors, metadata));
}
