/**
 * Incremental server-sent-events decoder following the WHATWG event-stream rules: CR, LF and CRLF
 * line ends (also split across reads), `event:`/`data:`/`id:` fields, multi-line data, comments,
 * a field with no colon, one leading space stripped from values, a leading BOM, and no dispatch of
 * an event left unterminated at end of stream. Text comes in already UTF-8 decoded (streaming
 * TextDecoder), so a character split across reads is the decoder's concern, not this one's.
 *
 * Linear in the text, whatever a server sends: each read is searched once, from where the last one
 * ended, and a line still open at the end of a read is carried, not searched again. A line, or an
 * event's data, longer than `maxChars` stops the decoder and reports an overflow (a `protocol` error
 * for the probe) instead of growing without bound. Scans by index: no per-line strings are made
 * except each event's data value and name.
 *
 * A reader may also take whole events straight from the read's text (`RawEvents`): at each event's
 * start the decoder offers it the text, and after dispatching an event that sat whole in one read as a
 * single data line it says where that event lay, so the reader can learn its shape.
 */
import { MAX_EVENT_CHARS } from '../constants.ts';
import { LineBreaks } from './line-breaks.ts';

export type EventSink = (event: string, data: string) => void;
/** Called once, when a line or an event's data passes the cap; the decoder ignores everything after. */
export type OverflowSink = (detail: string) => void;

export interface RawEvents {
  /** Takes the whole event at text[pos] if it recognises it; returns the index after it (its end included), or -1. */
  take(text: string, pos: number): number;
  /** The event just dispatched lay whole in `text`, from `start` to `end` (its end included), its one data value at `dataStart`. */
  seen(text: string, start: number, dataStart: number, dataEnd: number, end: number): void;
}

export interface Framer {
  push(text: string): void;
  end(): void;
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;
const BOM = 0xfeff;
const D = 100;
const A = 97;
const T = 116;
const E = 101;
const V = 118;
const N = 110;

/** The open line `carry` continued by chunk[pos..] (no copy when nothing was carried). */
function carried(carry: string, chunk: string, pos: number): string {
  return carry.length > 0 ? carry + chunk.slice(pos) : pos === 0 ? chunk : chunk.slice(pos);
}

function capDetail(what: string, maxChars: number): string {
  return `${what} over the ${Math.round(maxChars / 1024)} KiB cap`;
}

export interface DecoderOptions {
  onOverflow?: OverflowSink;
  maxChars?: number;
  raw?: RawEvents;
}

export function createSseDecoder(onEvent: EventSink, options: DecoderOptions = {}): Framer {
  const { onOverflow, maxChars = MAX_EVENT_CHARS, raw } = options;
  const breaks = new LineBreaks();
  /** The start of a line the last read did not end. */
  let carry = '';
  let skipLeadingLf = false;
  let started = false;
  let failed = false;
  let eventType = '';
  let data = '';
  let hasData = false;
  // Where the event being read lies in this read's text, while it is one event-line-and-data-line
  // block in one read: its start (-1 when not) and its data value's start (-1 until seen).
  let blockStart = -1;
  let dataStart = -1;

  function overflow(what: string): void {
    failed = true;
    carry = '';
    data = '';
    onOverflow?.(capDetail(what, maxChars));
  }

  function addData(value: string, valueStart: number): void {
    if (hasData) {
      blockStart = -1;
      if (data.length + 1 + value.length > maxChars) return overflow('an event');
      data = `${data}\n${value}`;
    } else {
      data = value;
      hasData = true;
      dataStart = valueStart;
    }
  }

  /** A line of `text` (the read, or a carried line joined to its end: then `inRead` is false). */
  function line(text: string, start: number, end: number, inRead: boolean): void {
    const first = text.charCodeAt(start);
    // The two fields every stream uses, recognised by their bytes.
    if (
      first === D &&
      end - start >= 5 &&
      text.charCodeAt(start + 4) === COLON &&
      text.charCodeAt(start + 1) === A &&
      text.charCodeAt(start + 2) === T &&
      text.charCodeAt(start + 3) === A
    ) {
      const valueStart = start + 5 < end && text.charCodeAt(start + 5) === SPACE ? start + 6 : start + 5;
      if (!inRead) blockStart = -1;
      return addData(text.slice(valueStart, end), valueStart);
    }
    if (
      first === E &&
      end - start >= 6 &&
      text.charCodeAt(start + 5) === COLON &&
      text.charCodeAt(start + 1) === V &&
      text.charCodeAt(start + 2) === E &&
      text.charCodeAt(start + 3) === N &&
      text.charCodeAt(start + 4) === T
    ) {
      const valueStart = start + 6 < end && text.charCodeAt(start + 6) === SPACE ? start + 7 : start + 6;
      if (!inRead || hasData) blockStart = -1;
      eventType = text.slice(valueStart, end);
      return;
    }
    blockStart = -1;
    if (first === COLON) return; // comment
    let colon = text.indexOf(':', start);
    if (colon === -1 || colon >= end) colon = end;
    let valueStart = colon + 1;
    if (valueStart < end && text.charCodeAt(valueStart) === SPACE) valueStart++;
    const name = text.slice(start, colon);
    if (name === 'data') addData(valueStart < end ? text.slice(valueStart, end) : '', valueStart);
    else if (name === 'event') eventType = valueStart < end ? text.slice(valueStart, end) : '';
    // `id`, `retry` and unknown fields carry nothing a probe needs.
  }

  /** The blank line ending an event, whose end (terminator included) is `after` in `text`, or -1 when not known yet. */
  function dispatch(text: string, after: number): void {
    if (hasData) {
      onEvent(eventType, data);
      if (raw !== undefined && blockStart !== -1 && after !== -1) raw.seen(text, blockStart, dataStart, dataStart + data.length, after);
    }
    eventType = '';
    data = '';
    hasData = false;
    blockStart = -1;
  }

  return {
    push(chunk: string): void {
      if (failed || chunk.length === 0) return;
      let pos = 0;
      if (!started) {
        started = true;
        if (chunk.charCodeAt(0) === BOM) pos = 1;
      }
      if (skipLeadingLf) {
        skipLeadingLf = false;
        if (chunk.charCodeAt(pos) === LF) pos++;
      }
      const length = chunk.length;
      breaks.reset(chunk);
      blockStart = -1; // an event begun in an earlier read does not lie whole in this one
      while (pos < length) {
        const between = carry.length === 0 && !hasData && eventType === '';
        if (between && raw !== undefined) {
          const after = raw.take(chunk, pos);
          if (after !== -1) {
            pos = after;
            continue;
          }
        }
        const end = breaks.next(pos);
        if (end === -1) break;
        // The index after this line's terminator, or -1 when a CR ends the read (an LF may follow).
        let after = end + 1;
        if (chunk.charCodeAt(end) === CR) {
          if (after === length) after = -1;
          else if (chunk.charCodeAt(after) === LF) after++;
        }
        if (carry.length > 0) {
          const whole = carry + chunk.slice(pos, end);
          carry = '';
          if (whole.length > maxChars) return overflow('a line');
          line(whole, 0, whole.length, false);
        } else if (end === pos) {
          dispatch(chunk, after);
        } else {
          if (end - pos > maxChars) return overflow('a line');
          if (between) blockStart = pos;
          line(chunk, pos, end, true);
        }
        if (failed) return;
        if (after === -1) {
          skipLeadingLf = true;
          pos = length;
        } else {
          pos = after;
        }
      }
      if (pos < length) {
        if (carry.length + (length - pos) > maxChars) return overflow('a line');
        carry = carried(carry, chunk, pos);
      }
    },
    end(): void {
      // Per the standard, an event without its terminating blank line is not dispatched; a
      // trailing line is still processed, so a final `data:` without blank line is dropped too.
      carry = '';
      eventType = '';
      data = '';
      hasData = false;
    },
  };
}

/** Newline-delimited JSON framing (Ollama, Cohere v1): each non-blank line is one event. */
export function createLineDecoder(onEvent: EventSink, options: DecoderOptions = {}): Framer {
  const { onOverflow, maxChars = MAX_EVENT_CHARS, raw } = options;
  const breaks = new LineBreaks();
  let carry = '';
  let started = false;
  let failed = false;
  function emit(text: string, start: number, end: number, after: number): void {
    if (end > start && text.charCodeAt(end - 1) === CR) end--;
    if (end === start) return;
    onEvent('', text.slice(start, end));
    if (raw !== undefined && after !== -1) raw.seen(text, start, start, end, after);
  }
  function overflow(): void {
    failed = true;
    carry = '';
    onOverflow?.(capDetail('a line', maxChars));
  }
  return {
    push(chunk: string): void {
      if (failed || chunk.length === 0) return;
      let pos = 0;
      if (!started) {
        started = true;
        if (chunk.charCodeAt(0) === BOM) pos = 1;
      }
      breaks.reset(chunk);
      while (pos < chunk.length) {
        if (carry.length === 0 && raw !== undefined) {
          const after = raw.take(chunk, pos);
          if (after !== -1) {
            pos = after;
            continue;
          }
        }
        const end = breaks.nextLf(pos);
        if (end === -1) break;
        if (carry.length > 0) {
          const whole = carry + chunk.slice(pos, end);
          carry = '';
          if (whole.length > maxChars) return overflow();
          emit(whole, 0, whole.length, -1);
        } else {
          if (end - pos > maxChars) return overflow();
          emit(chunk, pos, end, end + 1);
        }
        pos = end + 1;
      }
      if (pos < chunk.length) {
        if (carry.length + (chunk.length - pos) > maxChars) return overflow();
        carry = carried(carry, chunk, pos);
      }
    },
    end(): void {
      // A final line without newline is complete when the stream closes.
      if (!failed && carry.length > 0) emit(carry, 0, carry.length, -1);
      carry = '';
    },
  };
}
