// apps.mjs: issue 14's application-with-libraries flow driven by the
// official TypeScript MCP SDK client (tools/sdkclient_apps_test.go runs it),
// over stdio (the SDK's StdioClientTransport spawning `rea mcp`) or over
// streamable HTTP (the SDK's StreamableHTTPClientTransport with the bearer
// token in its Authorization header). Every tools/call goes through
// Client.callTool, which validates structuredContent against the tool's
// declared outputSchema once tools/list has been fetched (the script lists
// again after every open and close, so the SDK holds the current list); a
// validation failure is a thrown McpError, recorded as outcome
// "validation_failed". The script reads only what it needs to build the next
// call (a target_id, the candidate paths) and judges nothing: it prints one
// JSON report on stdout, each call with its answer's result, and the Go test
// compares.
//
// Usage: node apps.mjs PLAN.json, with PLAN:
//   {sdk_dir, transport:"stdio"|"http", rea, ledger, url, token, app,
//    names:[string], addresses:[string], close:string (a dependency name),
//    after_close:[string]}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const sdk = (p) => import(pathToFileURL(join(plan.sdk_dir, 'dist', 'esm', p)).href);
const { Client } = await sdk('client/index.js');
const { McpError } = await sdk('types.js');

let transport;
if (plan.transport === 'stdio') {
  const { StdioClientTransport } = await sdk('client/stdio.js');
  transport = new StdioClientTransport({ command: plan.rea, args: ['--ledger', plan.ledger, 'mcp'], env: { ...process.env }, stderr: 'inherit' });
} else {
  const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
  transport = new StreamableHTTPClientTransport(new URL(plan.url), { requestInit: { headers: { Authorization: `Bearer ${plan.token}` } } });
}

const report = {
  sdk_version: JSON.parse(readFileSync(join(plan.sdk_dir, 'package.json'), 'utf8')).version,
  node_version: process.version,
  transport: plan.transport,
  negotiated: null,
  client_errors: [],
  calls: [],
};
const client = new Client({ name: 'rea-sdkclient-apps', version: '1' }, { capabilities: {} });
client.onerror = (e) => report.client_errors.push(String(e?.message ?? e));
// The SDK hands the negotiated revision to the transport (the HTTP one
// sends it as MCP-Protocol-Version); the report keeps it.
const setVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = (v) => { report.negotiated = v; setVersion?.(v); };
await client.connect(transport);

let listed = new Set();
const list = async () => {
  const r = await client.listTools();
  listed = new Set(r.tools.map((t) => t.name));
  if (r.nextCursor) report.client_errors.push(`tools/list is paged (next cursor ${r.nextCursor}); the SDK validates against the last page only`);
};

// call records one tools/call under step; it returns the answer's result.
const call = async (step, tool, args) => {
  const c = { step, tool, arguments: args, listed: listed.has(tool), validator: client.getToolOutputValidator(tool) !== undefined };
  let r;
  try {
    r = await client.callTool({ name: tool, arguments: args });
    c.outcome = r.isError ? 'error' : 'success';
  } catch (e) {
    const m = String(e?.message ?? e);
    c.outcome = e instanceof McpError && /output schema|structured content/i.test(m) ? 'validation_failed' : 'protocol_error';
    c.message = m;
  }
  const sc = r?.structuredContent;
  c.structured = sc !== undefined;
  c.validated = c.validator && c.structured && (c.outcome === 'success' || c.outcome === 'error');
  c.code = sc?.error?.code ?? null;
  c.result = sc?.result ?? null;
  if (c.outcome === 'error') c.message = JSON.stringify(sc?.error ?? r).slice(0, 600);
  report.calls.push(c);
  return c.result;
};
const open = async (step, path) => {
  const res = await call(step, 'open_binary', { path });
  await list();
  return res?.target_id;
};

await list();
const app = await open('open_app', plan.app);
const deps = (await call('dependencies_before', 'list_dependencies', { target: app })) ?? [];
const libs = {};
for (const d of deps) if (typeof d.candidate_path === 'string') libs[d.name] = await open(`open:${d.name}`, d.candidate_path);
await call('dependencies_after', 'list_dependencies', { target: app });
for (const name of plan.names) await call(`name:${name}`, 'resolve_import', { target: app, name });
for (const address of plan.addresses) await call(`address:${address}`, 'resolve_import', { target: app, address });
await call('session', 'binary_session', {});
if (libs[plan.close]) {
  await call('close', 'close_binary', { target: libs[plan.close] });
  await list();
  for (const name of plan.after_close) await call(`after_close:${name}`, 'resolve_import', { target: app, name });
  await call('session_after_close', 'binary_session', {});
}
await client.close();
process.stdout.write(JSON.stringify(report) + '\n');
