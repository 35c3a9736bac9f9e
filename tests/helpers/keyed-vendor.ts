/**
 * A vendor on loopback that wants its API key, as OpenAI's Chat Completions does: a request without
 * `Authorization: Bearer <the exact key>` gets OpenAI's 401, one with it a real recorded streamed
 * completion (tests/fixtures/provider-streams), event by event. GETs (the round-trip probe's
 * /v1/models) are held to the same key. Every request is recorded: path, and whether its key was right.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadFixture } from './fixtures.ts';

export interface KeyedVendor {
  /** http://127.0.0.1:<port> */
  url: string;
  requests: Array<{ method: string; path: string; authorized: boolean }>;
  close(): Promise<void>;
}

const RECORDING = 'openai-chat-completions-text-include-usage.json';
/** Between the recording's events, so the stream has a first token and an inter-token gap to time. */
const EVENT_GAP_MS = 5;
/** OpenAI's answer to a wrong or missing key. */
const REFUSAL = {
  error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
};

export async function startKeyedVendor(key: string): Promise<KeyedVendor> {
  const recording = loadFixture(RECORDING);
  const events = recording.response.body.split(/(?<=\n\n)/);
  const requests: KeyedVendor['requests'] = [];
  const server: Server = createServer(async (req, res) => {
    for await (const _ of req) {
      // drain the request body
    }
    const authorized = req.headers.authorization === `Bearer ${key}`;
    requests.push({ method: req.method ?? '', path: req.url ?? '', authorized });
    if (!authorized) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(REFUSAL));
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"object":"list","data":[]}');
      return;
    }
    res.writeHead(200, { 'content-type': recording.response.headers['content-type'], 'cache-control': 'no-cache' });
    res.flushHeaders();
    for (const event of events) {
      await new Promise((r) => setTimeout(r, EVENT_GAP_MS));
      res.write(event);
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
