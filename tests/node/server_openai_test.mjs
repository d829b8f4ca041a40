// trit serve driven by the official OpenAI Node client: models, chat (plain
// and streamed), completions, errors (401, unknown model, too-long prompt,
// bad JSON), eight concurrent streams, a json_schema reply, n = 2, echo, a
// tool call round trip. Usage:
//   node server_openai_test.mjs --trit build/trit --model chat-test.gguf
// The model is written by tests/server/make_chat_model (CTest does it).
import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
if (!existsSync(join(here, 'node_modules', 'openai'))) {
  console.error(`SKIP: the openai npm package is not installed; run 'npm ci' in ${here} (scripts/test.sh does)`);
  process.exit(77);
}
const { default: OpenAI } = await import('openai');

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, v, i, a) => (i % 2 ? acc : [...acc, [v.replace(/^--/, ''), a[i + 1]]]), []));
const KEY = 'node-key';

function startServer() {
  return new Promise((resolve, reject) => {
    const proc = spawn(args.trit, ['serve', args.model, '--port', '0', '--parallel', '8', '--ctx', '512',
      '--threads', '2', '--api-key', KEY], { stdio: ['ignore', 'inherit', 'pipe'] });
    let log = '';
    const timer = setTimeout(() => { proc.kill(); reject(new Error('trit serve did not start:\n' + log)); }, 60000);
    proc.stderr.on('data', (d) => {
      log += d.toString();
      const m = log.match(/at http:\/\/[^:]+:(\d+)/);
      if (m) { clearTimeout(timer); resolve({ proc, port: Number(m[1]) }); }
    });
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`trit serve exited (${code}):\n${log}`)); });
  });
}

const { proc, port } = await startServer();
const baseURL = `http://127.0.0.1:${port}/v1`;
const client = new OpenAI({ baseURL, apiKey: KEY, maxRetries: 0, timeout: 60000 });
const model = 'chat-test';
const messages = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello there' }];
let failed = 0;

async function check(name, fn) {
  try {
    await fn();
    console.log(`ok   ${name}`);
  } catch (e) {
    failed += 1;
    console.log(`FAIL ${name}: ${e.stack || e}`);
  }
}

async function streamText(params) {
  const stream = await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } });
  let text = '';
  let usage = null;
  let finish = null;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    if (chunk.choices.length) {
      text += chunk.choices[0].delta.content ?? '';
      finish = chunk.choices[0].finish_reason ?? finish;
    }
  }
  return { text, usage, finish };
}

await check('models list', async () => {
  const list = await client.models.list();
  assert.deepEqual(list.data.map((m) => m.id), [model]);
});

await check('chat plain and streamed give the same text for the same seed', async () => {
  const params = { model, messages, max_tokens: 16, seed: 9, temperature: 0.9, ignore_eos: true };
  const plain = await client.chat.completions.create(params);
  assert.equal(plain.object, 'chat.completion');
  assert.equal(plain.usage.completion_tokens, 16);
  assert.equal(plain.choices[0].finish_reason, 'length');
  const streamed = await streamText(params);
  assert.equal(streamed.text, plain.choices[0].message.content);
  assert.equal(streamed.usage.completion_tokens, 16);
  assert.equal(streamed.finish, 'length');
});

await check('completions', async () => {
  const r = await client.completions.create({ model, prompt: 'Once upon a time', max_tokens: 8, seed: 1, ignore_eos: true });
  assert.equal(r.object, 'text_completion');
  assert.equal(r.usage.completion_tokens, 8);
  assert.equal(typeof r.choices[0].text, 'string');
});

await check('errors: 401, unknown model, too-long prompt, bad JSON', async () => {
  const bad = new OpenAI({ baseURL, apiKey: 'wrong', maxRetries: 0 });
  await assert.rejects(bad.models.list(), (e) => e.status === 401 && e.code === 'invalid_api_key');
  await assert.rejects(client.chat.completions.create({ model: 'nope', messages }),
    (e) => e.status === 404 && e.code === 'model_not_found');
  await assert.rejects(client.chat.completions.create({ model, messages: [{ role: 'user', content: 'word '.repeat(600) }] }),
    (e) => e.status === 400 && e.code === 'context_length_exceeded');
  const r = await fetch(`${baseURL}/chat/completions`, { method: 'POST', headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' }, body: '{"messages":' });
  assert.equal(r.status, 400);
  const body = await r.json();
  assert.equal(body.error.code, 'invalid_json');
  assert.ok('param' in body.error && 'type' in body.error && body.error.message);
});

await check('eight concurrent streams each get their own answer', async () => {
  const one = (i) => ({ model, messages: [{ role: 'user', content: `Stream number ${i}` }], max_tokens: 12, seed: i, ignore_eos: true });
  const expected = [];
  for (let i = 0; i < 8; i++) expected.push((await client.chat.completions.create(one(i))).choices[0].message.content);
  const got = await Promise.all([...Array(8).keys()].map((i) => streamText(one(i))));
  assert.deepEqual(got.map((g) => g.text), expected);
  for (const g of got) assert.equal(g.usage.completion_tokens, 12);
});

await check('a json_schema reply parses and has the shape of the schema', async () => {
  const schema = {
    type: 'object', additionalProperties: false, required: ['colour', 'count'],
    properties: { colour: { enum: ['red', 'green', 'blue'] }, count: { type: 'integer', minimum: 0, maximum: 9 } },
  };
  for (const seed of [1, 2, 3]) {
    const r = await client.chat.completions.create({
      model, messages, max_tokens: 100, seed, temperature: 1,
      response_format: { type: 'json_schema', json_schema: { name: 'thing', strict: true, schema } },
    });
    assert.equal(r.choices[0].finish_reason, 'stop');
    const value = JSON.parse(r.choices[0].message.content);
    assert.deepEqual(Object.keys(value).sort(), ['colour', 'count']);
    assert.ok(['red', 'green', 'blue'].includes(value.colour));
    assert.ok(Number.isInteger(value.count) && value.count >= 0 && value.count <= 9);
  }
});

await check('n = 2 gives the answers of seed and seed + 1; echo starts with the prompt', async () => {
  const params = { model, messages, max_tokens: 8, temperature: 1, ignore_eos: true };
  const two = await client.chat.completions.create({ ...params, seed: 20, n: 2 });
  assert.deepEqual(two.choices.map((c) => c.index), [0, 1]);
  assert.equal(two.usage.completion_tokens, 16);
  for (const i of [0, 1]) {
    const one = await client.chat.completions.create({ ...params, seed: 20 + i });
    assert.equal(two.choices[i].message.content, one.choices[0].message.content);
  }
  const prompt = 'Once upon a time';
  const plain = await client.completions.create({ model, prompt, max_tokens: 6, seed: 4, ignore_eos: true });
  const echoed = await client.completions.create({ model, prompt, max_tokens: 6, seed: 4, ignore_eos: true, echo: true });
  assert.equal(echoed.choices[0].text, prompt + plain.choices[0].text);
});

await check('a forced tool call, its result sent back, an answer', async () => {
  const tools = [{
    type: 'function',
    function: {
      name: 'get_weather', description: 'Weather in a city',
      parameters: { type: 'object', additionalProperties: false, required: ['city'], properties: { city: { enum: ['Oslo', 'Lima'] } } },
    },
  }];
  const first = await client.chat.completions.create({
    model, messages, tools, tool_choice: { type: 'function', function: { name: 'get_weather' } },
    parallel_tool_calls: false, max_tokens: 100, seed: 3,
  });
  assert.equal(first.choices[0].finish_reason, 'tool_calls');
  assert.equal(first.choices[0].message.content, null);
  const [call] = first.choices[0].message.tool_calls;
  assert.equal(call.function.name, 'get_weather');
  assert.ok(['Oslo', 'Lima'].includes(JSON.parse(call.function.arguments).city));
  const answer = await client.chat.completions.create({
    model, tools, max_tokens: 6, seed: 4, ignore_eos: true,
    messages: [...messages, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '7 C, grey' }],
  });
  assert.equal(answer.choices[0].finish_reason, 'length');
  assert.equal(typeof answer.choices[0].message.content, 'string');
});

proc.kill('SIGTERM');
const code = await new Promise((resolve) => proc.on('exit', (c) => resolve(c)));
if (code !== 0) { console.log(`FAIL trit serve exited with ${code}`); failed += 1; }
console.log(failed ? `${failed} failed` : 'all passed');
process.exit(failed ? 1 : 0);
