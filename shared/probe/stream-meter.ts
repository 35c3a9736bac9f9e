import { createLineDecoder, createSseDecoder, type Framer, type RawEvents } from './sse-decoder.ts';
import { createEventStreamDecoder, dispatchMessage, type ByteFramer, type RawMessages } from './aws-eventstream.ts';
import { createStreamState, type StreamState } from './stream-state.ts';
import type { Protocol } from './protocols/protocol.ts';
import { learnTemplate, takeByTemplate } from './protocols/token-template.ts';
import { learnMessageTemplate, takeByMessageTemplate, type MessageTemplate } from './protocols/message-template.ts';

const STREAM_DECODE = { stream: true } as const;
const CONTROL_CHARACTER = /[\x00-\x1f]/;

/**
 * Times a body read by read: each read() is stamped once (events that arrive in one read share its
 * time) and the protocol reader says whether that read carried tokens, answer, or the end.
 */
export class StreamMeter {
  readonly state: StreamState;
  firstByteAt: number | null = null;
  firstTokenAt: number | null = null;
  firstAnswerAt: number | null = null;
  /** Index in tokenReadTimes of the first read that carried answer output. */
  firstAnswerRead: number | null = null;
  lastTokenAt: number | null = null;
  endAt: number | null = null;
  bytes = 0;
  /** Time of every token-bearing read. */
  readonly tokenReadTimes: number[] = [];
  /** The BOM is the framers' concern (a leading one is dropped there); never dropped mid-stream. */
  private readonly decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  /** The last read ended inside a multi-byte character: the decoder holds its first bytes. */
  private partialChar = false;
  /** The text framings (SSE, NDJSON); null for a binary one. */
  private readonly framer: Framer | null;
  /** AWS's binary event stream, which takes the bytes themselves; null for a text framing. */
  private readonly messages: ByteFramer | null;
  private readonly protocol: Protocol;

  /** `fastPath: false` sends every event through the full JSON parse (tests compare both). */
  constructor(protocol: Protocol, options: { collectText?: boolean; fastPath?: boolean } = {}) {
    const state = createStreamState(options.collectText ?? false);
    this.state = state;
    this.protocol = protocol;
    const fast = options.fastPath === false ? undefined : protocol.fastEvent;
    const volatiles = protocol.volatiles;
    // An event a fast path read as one token string teaches the stream's token template, which then
    // takes the events of that shape straight from the read's text (token-template.ts).
    let learnable = false;
    let learnDefers = false;
    const sink = (event: string, data: string): void => {
      learnable = false;
      // A broken stream is read no further, even within the read that broke it.
      if (state.protocolError !== null) return;
      state.eventHasToken = false;
      if (fast === undefined) protocol.onEvent(event, data, state);
      else {
        state.sliceOpen = -1;
        // JSON allows no raw control character in a string, which the fast paths do not look for.
        if (!CONTROL_CHARACTER.test(data) && fast(event, data, state)) {
          learnable = state.sliceOpen !== -1;
          learnDefers = state.deferredUsage === data;
        } else {
          protocol.onEvent(event, data, state);
        }
      }
      if (state.eventHasToken) state.tokenEvents++;
    };
    const raw: RawEvents | undefined =
      fast === undefined
        ? undefined
        : {
            take(text, pos) {
              if (state.protocolError !== null) return -1;
              state.eventHasToken = false;
              const after = takeByTemplate(text, pos, state);
              if (state.eventHasToken) state.tokenEvents++;
              return after;
            },
            seen(text, start, dataStart, dataEnd, end) {
              if (!learnable) return;
              learnable = false;
              learnTemplate(
                state,
                { text, start, dataStart, dataEnd, end },
                state.sliceOpen,
                state.sliceClose,
                state.sliceKind,
                volatiles,
                learnDefers,
              );
            },
          };
    // A cap passed, or (in the binary framing) a broken message: a protocol error, and nothing after it is read.
    const onOverflow = (detail: string): void => {
      if (state.protocolError === null) state.protocolError = detail;
    };
    const framing = { onOverflow, raw };
    if (protocol.framing === 'aws-eventstream') {
      // Each message reaches the sink as an event: its type, and its payload's text (aws-eventstream.ts);
      // or, once a fast path has read one token message, those of its shape are read from their bytes.
      let template: MessageTemplate | null = null;
      const rawMessages: RawMessages | undefined =
        fast === undefined
          ? undefined
          : {
              take(b, start, end) {
                if (template === null || state.protocolError !== null) return false;
                state.eventHasToken = false;
                if (!takeByMessageTemplate(template, b, start, end, state)) return false;
                if (state.eventHasToken) state.tokenEvents++;
                return true;
              },
              seen(b, start, payloadStart, end) {
                if (!learnable) return;
                learnable = false;
                // The byte template reads a token and nothing else: an event whose usage a fast path deferred is not one.
                if (learnDefers) return;
                const { sliceOpen, sliceClose, sliceKind } = state;
                template = learnMessageTemplate(b, start, payloadStart, end, sliceOpen, sliceClose, sliceKind, volatiles) ?? template;
              },
            };
      this.framer = null;
      this.messages = createEventStreamDecoder(
        (headers, payload) => {
          if (state.protocolError !== null) return;
          const wrong = dispatchMessage(headers, payload, sink);
          if (wrong !== null) onOverflow(wrong);
        },
        { onFault: onOverflow, raw: rawMessages },
      );
    } else {
      this.messages = null;
      this.framer = protocol.framing === 'sse' ? createSseDecoder(sink, framing) : createLineDecoder(sink, framing);
    }
  }

  onRead(chunk: Uint8Array, t: number): void {
    if (this.firstByteAt === null) this.firstByteAt = t;
    this.bytes += chunk.byteLength;
    const s = this.state;
    s.readHasToken = false;
    s.readHasAnswer = false;
    if (this.framer !== null) this.framer.push(this.decode(chunk));
    else this.messages!.push(chunk);
    this.stamp(t);
  }

  /**
   * A read that ends on an ASCII byte, with nothing held from the one before, is whole UTF-8: decoded
   * in one go, which costs about half the streaming decode; otherwise streaming, so that a character
   * split across reads is joined.
   */
  private decode(chunk: Uint8Array): string {
    const last = chunk.length > 0 ? chunk[chunk.length - 1] : 0;
    if (!this.partialChar && last < 0x80) return this.decoder.decode(chunk);
    this.partialChar = last >= 0x80;
    return this.decoder.decode(chunk, STREAM_DECODE);
  }

  onClose(t: number): void {
    const s = this.state;
    s.readHasToken = false;
    s.readHasAnswer = false;
    if (this.framer !== null) {
      this.framer.push(this.decoder.decode());
      this.framer.end();
    } else {
      this.messages!.end();
    }
    this.stamp(t);
    if (this.endAt === null) this.endAt = t;
  }

  /** Gives this read's time to whatever it revealed: first or last token, first answer, the end marker. */
  private stamp(t: number): void {
    const s = this.state;
    if (s.readHasToken) {
      if (this.firstTokenAt === null) this.firstTokenAt = t;
      this.lastTokenAt = t;
      this.tokenReadTimes.push(t);
    }
    if (s.readHasAnswer && this.firstAnswerAt === null) {
      this.firstAnswerAt = t;
      this.firstAnswerRead = this.tokenReadTimes.length - 1;
    }
    if (s.endMarker && this.endAt === null) this.endAt = t;
  }

  /** Completes what the protocol's fast paths deferred (may record a protocol error); call when reading stops. */
  settle(): void {
    this.protocol.settle?.(this.state);
  }

  /** No more reading is needed: the end marker, an error event, or an unparsable event was seen. */
  get finished(): boolean {
    const s = this.state;
    return s.endMarker || s.streamError !== null || s.protocolError !== null;
  }
}
