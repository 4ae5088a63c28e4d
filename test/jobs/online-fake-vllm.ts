import { existsSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * A fake vLLM server on loopback for the online GRPO tests: OpenAI chat completions whose answers
 * depend on the requested model name and the request seed (`answer`), POST /v1/load_lora_adapter
 * (the adapter folder must hold adapter_config.json and adapter_model.safetensors; the name is
 * then served), POST /v1/unload_lora_adapter (the name is no longer served; an unknown name is vLLM's 404) and
 * GET /v1/models. A model it does not serve is a 404, as in vLLM. With `key`, every
 * route wants `Authorization: Bearer <key>`.
 */
export interface FakeVllmRequest {
  method: string;
  path: string;
  body: any;
  auth: string | undefined;
}

export interface FakeVllm {
  /** Server root, e.g. http://127.0.0.1:PORT (the OpenAI base URL is `${url}/v1`). */
  url: string;
  requests: FakeVllmRequest[];
  models: Set<string>;
  loads: Array<{ lora_name: string; lora_path: string }>;
  /** lora_name of each successful unload, in order. */
  unloads: string[];
  /** Set to make load_lora_adapter fail with this status. */
  failLoads: number | null;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

export async function startFakeVllm(opts: { baseModel: string; key?: string; answer: (req: { model: string; seed: number | undefined; body: any }) => string }): Promise<FakeVllm> {
  const requests: FakeVllmRequest[] = [];
  const models = new Set([opts.baseModel]);
  const loads: FakeVllm['loads'] = [];
  const unloads: string[] = [];
  const state = { failLoads: null as number | null };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const r: FakeVllmRequest = { method: req.method ?? '', path: req.url ?? '', body: raw ? JSON.parse(raw) : null, auth: req.headers.authorization };
      requests.push(r);
      if (opts.key && r.auth !== `Bearer ${opts.key}`) return json(res, 401, { error: { message: 'bad key' } });
      if (r.method === 'GET' && r.path === '/v1/models') return json(res, 200, { object: 'list', data: [...models].map((id) => ({ id, object: 'model' })) });
      if (r.method === 'POST' && r.path === '/v1/load_lora_adapter') {
        if (state.failLoads !== null) return json(res, state.failLoads, { object: 'error', message: 'The lora adapter could not be loaded (fake)', code: state.failLoads });
        const { lora_name: name, lora_path: path } = r.body ?? {};
        const missing = ['adapter_config.json', 'adapter_model.safetensors'].filter((f) => typeof path !== 'string' || !existsSync(join(path, f)));
        if (typeof name !== 'string' || missing.length) return json(res, 400, { object: 'error', message: `no ${missing.join(', ')} in ${path}` });
        loads.push({ lora_name: name, lora_path: path });
        models.add(name);
        return res.writeHead(200, { 'content-type': 'text/plain' }).end(`Success: LoRA adapter '${name}' added successfully.`);
      }
      if (r.method === 'POST' && r.path === '/v1/unload_lora_adapter') {
        const name = r.body?.lora_name;
        if (typeof name !== 'string' || name === opts.baseModel || !models.has(name)) return json(res, 404, { object: 'error', message: `The lora adapter '${name}' cannot be found.` });
        models.delete(name);
        unloads.push(name);
        return res.writeHead(200, { 'content-type': 'text/plain' }).end(`Success: LoRA adapter '${name}' removed successfully.`);
      }
      if (r.method === 'POST' && r.path === '/v1/chat/completions') {
        const model = r.body?.model;
        if (!models.has(model)) return json(res, 404, { object: 'error', message: `The model \`${model}\` does not exist.` });
        const content = opts.answer({ model, seed: r.body.seed, body: r.body });
        return json(res, 200, { id: 'cmpl-fake', object: 'chat.completion', model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });
      }
      json(res, 404, { error: { message: `no route ${r.method} ${r.path}` } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests, models, loads, unloads,
    get failLoads() { return state.failLoads; },
    set failLoads(v) { state.failLoads = v; },
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}
