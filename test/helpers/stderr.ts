/** A spawned process's stderr, read all along (a full pipe would block the child). */

/** The last characters a process wrote to stderr, to explain a failure. */
const STDERR_TAIL_CHARS = 4_000;

/** Hands each piece the child writes to `onText`, until its stderr closes. */
export function followStderr(stderr: ReadableStream<Uint8Array>, onText: (text: string) => void): void {
  void (async () => {
    const decoder = new TextDecoder();
    const reader = stderr.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) onText(decoder.decode(read.value));
  })().catch(() => {});
}

/** `tail` with `text` appended, cut to its last STDERR_TAIL_CHARS. */
export function appendTail(tail: string, text: string): string {
  return (tail + text).slice(-STDERR_TAIL_CHARS);
}
