import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local fake of an OpenAI-compatible chat endpoint for tests of the LLM distiller and the VLM judge.
 * Every request is recorded (path, parsed JSON body, authorization header) and then answered by
 * `handler`; a handler that never answers stands in for a hung endpoint (close() cuts it off).
 */
export interface FakeChatRequest {
  path: string;
  /** Whatever the client under test sent; each test reads the fields it checks. */
  body: any;
  auth: string | undefined;
}

export type FakeChatHandler = (req: FakeChatRequest, res: ServerResponse) => void;

export interface FakeChat {
  /** http://127.0.0.1:PORT (add /v1 or a path prefix as the test likes). */
  url: string;
  requests: FakeChatRequest[];
  close(): Promise<void>;
}

export async function startFakeChat(handler: FakeChatHandler): Promise<FakeChat> {
  const requests: FakeChatRequest[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const r: FakeChatRequest = { path: req.url ?? '', body: JSON.parse(raw), auth: req.headers.authorization };
      requests.push(r);
      handler(r, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

/** A chat completion body whose first choice says `content` (with token log-probs when given). */
export function chatCompletion(content: string, logprobs?: unknown): string {
  return JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content }, ...(logprobs ? { logprobs } : {}) }] });
}

/** Answers 200 with a chat completion. */
export function replyChat(res: ServerResponse, content: string, logprobs?: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(chatCompletion(content, logprobs));
}

/** The data: URLs of the image parts of a VLM request (the judge's user message carries the screenshot). */
export function imageUrls(req: FakeChatRequest): string[] {
  const parts = (req.body.messages?.[1]?.content ?? []) as { type: string; image_url?: { url: string } }[];
  return parts.filter((p) => p.type === 'image_url').map((p) => p.image_url?.url ?? '');
}
