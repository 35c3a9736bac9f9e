/**
 * Incremental server-sent-events decoder following the WHATWG event-stream rules: CR, LF and CRLF
 * line ends (also split across reads), `event:`/`data:`/`id:` fields, multi-line data, comments,
 * a field with no colon, one leading space stripped from values, a leading BOM, and no dispatch of
 * an event left unterminated at end of stream. Text comes in already UTF-8 decoded (streaming
 * TextDecoder), so a character split across reads is the decoder's concern, not this one's.
 *
 * Scans the decoded text by index: no per-line strings are made except each event's data value.
 */
export type EventSink = (event: string, data: string) => void;

export interface Framer {
  push(text: string): void;
  end(): void;
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;

export function createSseDecoder(onEvent: EventSink): Framer {
  let pending = '';
  let skipLeadingLf = false;
  let started = false;
  let eventType = '';
  let data = '';
  let hasData = false;

  function dispatch(): void {
    if (hasData) onEvent(eventType, data);
    eventType = '';
    data = '';
    hasData = false;
  }

  function line(text: string, start: number, end: number): void {
    if (start === end) {
      dispatch();
      return;
    }
    const first = text.charCodeAt(start);
    if (first === COLON) return; // comment
    let colon = text.indexOf(':', start);
    if (colon === -1 || colon >= end) colon = end;
    let valueStart = colon + 1;
    if (valueStart < end && text.charCodeAt(valueStart) === SPACE) valueStart++;
    const nameLength = colon - start;
    if (nameLength === 4 && text.startsWith('data', start)) {
      const value = valueStart < end ? text.slice(valueStart, end) : '';
      data = hasData ? data + '\n' + value : value;
      hasData = true;
    } else if (nameLength === 5 && text.startsWith('event', start)) {
      eventType = valueStart < end ? text.slice(valueStart, end) : '';
    }
    // `id`, `retry` and unknown fields carry nothing a probe needs.
  }

  return {
    push(chunk: string): void {
      if (chunk.length === 0) return;
      const text = pending.length > 0 ? pending + chunk : chunk;
      pending = '';
      let pos = 0;
      if (!started) {
        started = true;
        if (text.charCodeAt(0) === 0xfeff) pos = 1;
      }
      if (skipLeadingLf) {
        skipLeadingLf = false;
        if (text.charCodeAt(pos) === LF) pos++;
      }
      const length = text.length;
      // Next LF and CR positions, found with native indexOf and advanced only when passed.
      let nextLf = text.indexOf('\n', pos);
      let nextCr = text.indexOf('\r', pos);
      for (;;) {
        if (nextLf !== -1 && nextLf < pos) nextLf = text.indexOf('\n', pos);
        if (nextCr !== -1 && nextCr < pos) nextCr = text.indexOf('\r', pos);
        let end: number;
        let isCr = false;
        if (nextCr === -1) {
          if (nextLf === -1) break;
          end = nextLf;
        } else if (nextLf === -1 || nextCr < nextLf) {
          end = nextCr;
          isCr = true;
        } else {
          end = nextLf;
        }
        line(text, pos, end);
        pos = end + 1;
        if (isCr) {
          if (pos === length) skipLeadingLf = true;
          else if (text.charCodeAt(pos) === LF) pos++;
        }
      }
      if (pos < length) pending = pos === 0 ? text : text.slice(pos);
    },
    end(): void {
      // Per the standard, an event without its terminating blank line is not dispatched; a
      // trailing line is still processed, so a final `data:` without blank line is dropped too.
      pending = '';
      eventType = '';
      data = '';
      hasData = false;
    },
  };
}

/** Newline-delimited JSON framing (Ollama, Cohere v1): each non-blank line is one event. */
export function createLineDecoder(onEvent: EventSink): Framer {
  let pending = '';
  let started = false;
  function emit(text: string, start: number, end: number): void {
    if (end > start && text.charCodeAt(end - 1) === CR) end--;
    if (end > start) onEvent('', text.slice(start, end));
  }
  return {
    push(chunk: string): void {
      if (chunk.length === 0) return;
      const text = pending.length > 0 ? pending + chunk : chunk;
      pending = '';
      let pos = 0;
      if (!started) {
        started = true;
        if (text.charCodeAt(0) === 0xfeff) pos = 1; // a leading BOM
      }
      for (;;) {
        const end = text.indexOf('\n', pos);
        if (end === -1) break;
        emit(text, pos, end);
        pos = end + 1;
      }
      if (pos < text.length) pending = text.slice(pos);
    },
    end(): void {
      // A final line without newline is complete when the stream closes.
      if (pending.length > 0) emit(pending, 0, pending.length);
      pending = '';
    },
  };
}
