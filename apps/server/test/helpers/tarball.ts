// Hand-made tar.gz archives for snapshot tests: each header is written byte by byte (ustar),
// so a test can build exactly the hostile entries a real tool would refuse to create
// (`..` paths, absolute paths, symlinks out of the tree).
import { gzipSync } from "node:zlib";

export interface TarEntry {
  path: string;
  body?: string;
  /** `0` file (default), `5` folder, `2` symlink. */
  type?: "0" | "5" | "2";
  linkTarget?: string;
}

function field(buf: Buffer, offset: number, length: number, value: string): void {
  buf.write(value.slice(0, length), offset, "latin1");
}

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, "0")}\0`;
}

function header(entry: TarEntry, size: number): Buffer {
  const h = Buffer.alloc(512);
  field(h, 0, 100, entry.path);
  field(h, 100, 8, octal(entry.type === "5" ? 0o755 : 0o644, 8));
  field(h, 108, 8, octal(0, 8));
  field(h, 116, 8, octal(0, 8));
  field(h, 124, 12, octal(size, 12));
  field(h, 136, 12, octal(Math.floor(Date.UTC(2026, 0, 1) / 1000), 12));
  field(h, 148, 8, "        ");
  field(h, 156, 1, entry.type ?? "0");
  field(h, 157, 100, entry.linkTarget ?? "");
  field(h, 257, 6, "ustar\0");
  field(h, 263, 2, "00");
  let sum = 0;
  for (const byte of h) sum += byte;
  field(h, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return h;
}

export function tarGz(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const body = Buffer.from(e.type === undefined || e.type === "0" ? (e.body ?? "") : "", "utf8");
    parts.push(header(e, body.length), body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(parts));
}
