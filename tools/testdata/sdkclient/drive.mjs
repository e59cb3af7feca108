// drive.mjs: the official TypeScript MCP SDK client against a real `rea mcp`
// (tools/sdkclient_test.go runs it). Every tools/call goes through the SDK's
// Client.callTool, which validates structuredContent against the tool's
// declared outputSchema (for isError results too, when they carry
// structuredContent) once tools/list has been fetched; a validation failure
// is a thrown McpError, recorded here as outcome "validation_failed". The
// script only drives calls; it knows no answer shapes beyond what it needs
// to build the next call's arguments (an address, an evidence id, an
// occurrence id), and it judges nothing: it prints one JSON report on stdout
// and the Go test decides.
//
// Usage: node drive.mjs PLAN.json, with PLAN:
//   {sdk_dir, rea, env:{...}, ledger_dir, fixture, gdb, zip, directory,
//    jsapp, extract_root, capture_root, evidence_root}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const sdk = (p) => import(pathToFileURL(join(plan.sdk_dir, 'dist', 'esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { McpError, ToolListChangedNotificationSchema, ElicitRequestSchema, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } =
  await sdk('types.js');

const MODERN = '2026-07-28';
const CLIENT_INFO = { name: 'rea-sdkclient', version: '1' };
const bytes = (v) => (v === undefined ? null : Buffer.byteLength(JSON.stringify(v), 'utf8'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const UNKNOWN_ARG = { rea_sdkclient_unknown_argument: true };

// Recorder wraps the SDK's stdio transport: it keeps the last raw tools/call
// and tools/list results (sizes are measured on what the server sent) and,
// for the 2026-07-28 era, which the SDK cannot speak (the revision has no
// initialize; every request names its protocol version and the client's
// capabilities in _meta), it adds those _meta keys to every request after
// the SDK's own initialize. Everything else is the SDK's.
class Recorder {
  constructor(inner, era, capabilities) {
    this.inner = inner;
    this.era = era;
    this.capabilities = capabilities;
    this.negotiated = null;
    this.initID = null;
    this.lastCall = null;
    this.lastList = null;
    inner.onmessage = (m, extra) => this.receive(m, extra);
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => this.onerror?.(e);
  }
  start() { return this.inner.start(); }
  close() { return this.inner.close(); }
  send(m, opts) {
    if (m.method === 'initialize') this.initID = m.id;
    else if (this.era === MODERN && m.method !== undefined && m.id !== undefined) {
      m = { ...m, params: { ...m.params, _meta: { ...m.params?._meta,
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
        'io.modelcontextprotocol/clientCapabilities': this.capabilities } } };
    }
    return this.inner.send(m, opts);
  }
  receive(m, extra) {
    if (m.id !== undefined && m.id === this.initID && m.result) this.negotiated = m.result.protocolVersion;
    if (m.result && Array.isArray(m.result.tools)) this.lastList = m.result;
    if (m.result && Array.isArray(m.result.content)) this.lastCall = m.result;
    this.onmessage?.(m, extra);
  }
}

// findString returns the first string value under v (depth first, keys in
// order) that matches re, preferring a property named key.
function findString(v, re, key) {
  if (v && typeof v === 'object') {
    if (key && typeof v[key] === 'string' && re.test(v[key])) return v[key];
    for (const x of Object.values(v)) {
      const s = findString(x, re, key);
      if (s !== undefined) return s;
    }
  } else if (typeof v === 'string' && re.test(v)) return v;
  return undefined;
}
const ADDRESS = /^0x[0-9a-f]+$/;
const findAddress = (sc) => findString(sc?.result, ADDRESS, 'address');
const evidenceID = (sc) => sc?.evidence?.evidence_id;

// findObjects returns every object under v for which pred holds.
function findObjects(v, pred, out = []) {
  if (Array.isArray(v)) v.forEach((x) => findObjects(x, pred, out));
  else if (v && typeof v === 'object') {
    if (pred(v)) out.push(v);
    Object.values(v).forEach((x) => findObjects(x, pred, out));
  }
  return out;
}

async function runEra(era, ledger) {
  const rep = { era, negotiated: null, meta_shim: era === MODERN, lists: [], calls: [], client_errors: [], progress: [] };
  const inner = new StdioClientTransport({
    command: plan.rea,
    args: ['--ledger', ledger, 'mcp'],
    env: { ...process.env, ...plan.env },
    stderr: 'inherit',
  });
  const capabilities = { elicitation: {} };
  const rec = new Recorder(inner, era, capabilities);
  const client = new Client(CLIENT_INFO, { capabilities });
  // onerror is where the SDK reports what it drops, e.g. a progress
  // notification for a request it already answered.
  client.onerror = (e) => rep.client_errors.push(String(e?.message ?? e));
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed++; });
  let elicited = 0;
  client.setRequestHandler(ElicitRequestSchema, async () => {
    elicited++;
    return { action: 'accept', content: { lifetime: 'once' } };
  });
  await client.connect(rec);
  rep.negotiated = rec.negotiated;
  const modern = era === MODERN;

  let listed = new Set();
  const seen = new Set();
  const list = async (stage) => {
    const r = await client.listTools();
    listed = new Set(r.tools.map((t) => t.name));
    rep.lists.push({ stage, names: [...listed].sort(), bytes: bytes(rec.lastList), next_cursor: r.nextCursor ?? null });
  };
  // settle waits for the list_changed a target change sends (legacy eras
  // only) and lists again, so the SDK validates against the current list.
  const settle = async (stage, before) => {
    if (!modern) {
      for (let i = 0; i < 1000 && changed <= before; i++) await sleep(10);
      if (changed <= before) rep.client_errors.push(`${stage}: no notifications/tools/list_changed within 10s`);
    }
    await list(stage);
  };

  // call records one tools/call. A 2026-07-28 input request (the server
  // asks before it answers; this SDK does not know the form) is answered
  // like the legacy elicitation handler answers, and the call repeated with
  // the answers and the request state, as that revision has it.
  const call = async (stage, tool, args, expect, opts, round = {}) => {
    const c = { stage, tool, expect, listed: listed.has(tool), validator: client.getToolOutputValidator(tool) !== undefined };
    rec.lastCall = null;
    let r;
    try {
      r = await client.callTool({ name: tool, arguments: args, ...round }, undefined, opts);
      c.outcome = r.isError ? 'error' : 'success';
    } catch (e) {
      const m = String(e?.message ?? e);
      c.outcome = e instanceof McpError && /output schema|structured content/i.test(m) ? 'validation_failed' : 'protocol_error';
      c.message = m;
      r = rec.lastCall ?? undefined;
      // A 2026-07-28 input request (the server asks the client before it
      // answers) carries no structuredContent; this SDK does not know the
      // form and so calls it a missing result.
      if (c.outcome === 'validation_failed' && r?.inputRequests && r.structuredContent === undefined) c.outcome = 'input_request';
    }
    const sc = r?.structuredContent;
    c.structured = sc !== undefined;
    c.validated = c.validator && c.structured && c.outcome !== 'protocol_error';
    c.bytes_result = bytes(rec.lastCall ?? undefined);
    c.bytes_structured = bytes(sc);
    if (sc?.evidence !== undefined) {
      c.bytes_evidence = bytes(sc.evidence);
      c.evidence_limitations = Array.isArray(sc.evidence.limitations) ? sc.evidence.limitations.length : null;
    }
    if (sc?.error) c.code = sc.error.code;
    if (expect !== 'any' && c.outcome !== expect) c.answer = JSON.stringify(sc ?? r ?? null).slice(0, 600);
    rep.calls.push(c);
    if (c.outcome === 'input_request' && !round.requestState) {
      const inputResponses = {};
      for (const [id, q] of Object.entries(r.inputRequests)) {
        if (q.method !== 'elicitation/create') return sc;
        elicited++;
        inputResponses[id] = { action: 'accept', content: { lifetime: 'once' } };
      }
      return call(stage, tool, args, expect, opts, { inputResponses, requestState: r.requestState });
    }
    return sc;
  };
  const ok = (stage, tool, args, opts) => call(stage, tool, args, 'success', opts);
  const fail = (stage, tool, args) => call(stage, tool, args, 'error');
  // badArguments: one invalid_request per tool, the first time it is listed.
  const badArguments = async (stage) => {
    for (const t of [...listed].sort()) {
      if (seen.has(t)) continue;
      seen.add(t);
      await fail(stage, t, UNKNOWN_ARG);
    }
  };
  const open = async (stage, path, opts) => {
    const before = changed;
    const sc = await ok(stage, 'open_binary', { path }, opts);
    await settle(stage, before);
    return sc;
  };

  // No target.
  let stage = 'no_target';
  await list(stage);
  if (modern) {
    // The full catalog: an unavailable tool's call reaches its handler and
    // answers with the typed error of its reason.
    for (const t of [...listed].sort()) if (t !== 'open_binary' && t !== 'binary_session') await call(stage, t, {}, 'any');
  }
  await badArguments(stage);
  await ok(stage, 'binary_session', {});
  await ok(stage, 'binary_session', { detail: 'capabilities' });
  await ok(stage, 'binary_session', { detail: 'full' });
  await fail(stage, 'binary_session', { detail: 'everything' });
  await fail(stage, 'open_binary', { path: join(plan.ledger_dir, 'no-such-file') });
  await ok(stage, 'analyze_javascript_application', { input_path: plan.jsapp });
  await ok(stage, 'analyze_javascript_application', { input_path: plan.jsapp, detail: 'full' });
  await fail(stage, 'analyze_javascript_application', { input_path: join(plan.ledger_dir, 'no-such-app') });
  const asked = elicited;
  await ok(stage, 'capture_process_scenario', {
    executable: '/bin/sh', arguments: ['-c', 'read line; echo "got:$line"'], working_directory: plan.capture_root,
    stdin_steps: [{ type: 'write', data: 'hello\n' }], timeout_ms: 20000,
  });
  rep.capture_elicitations = elicited - asked;
  await fail(stage, 'capture_process_scenario', { executable: '/bin/sh', working_directory: plan.ledger_dir });

  // A compiled C fixture: provider, annotation, navigation, composed tools.
  stage = 'elf';
  const elf = (await open(stage, plan.fixture))?.result?.target_id;
  await badArguments(stage);
  await ok(stage, 'binary_session', {});
  await ok(stage, 'binary_overview', {});
  await ok(stage, 'binary_overview', { detail: 'detailed' });
  await ok(stage, 'list_documents', {});
  await ok(stage, 'current_document', {});
  await ok(stage, 'list_segments', {});
  await ok(stage, 'list_dependencies', {});
  await ok(stage, 'resolve_import', { name: 'printf' });
  await ok(stage, 'list_names', {});
  await ok(stage, 'list_procedures', {});
  await ok(stage, 'list_strings', {});
  await ok(stage, 'search_procedures', { pattern: 'main' });
  const strings = await ok(stage, 'search_strings', { pattern: 'banner' });
  const mainAt = findAddress(await ok(stage, 'procedure_address', { procedure: 'main' }));
  const helperAt = findAddress(await ok(stage, 'procedure_address', { procedure: 'exported_twice' }));
  const stringAt = findAddress(strings);
  rep.addresses = { main: mainAt ?? null, exported_twice: helperAt ?? null, string: stringAt ?? null };
  await ok(stage, 'procedure_info', { procedure: 'main' });
  await ok(stage, 'procedure_assembly', { procedure: 'main' });
  await ok(stage, 'procedure_calls', { procedure: 'main' });
  await ok(stage, 'procedure_references', { procedure: 'main' });
  await ok(stage, 'procedure_pseudo_code', { procedure: 'main', limit: 5 });
  await ok(stage, 'search_pseudo_code', { pattern: 'return' });
  await ok(stage, 'read_function_instructions', { procedure: 'main' });
  await ok(stage, 'procedure_callers', { procedure: 'exported_twice' });
  const callees = await ok(stage, 'procedure_callees', { procedure: 'main' });
  await ok(stage, 'xrefs', { address: helperAt });
  await ok(stage, 'xrefs', { address: stringAt });
  await ok(stage, 'resolve_containing_procedure', { address: mainAt });
  await ok(stage, 'goto_address', { address: mainAt });
  await ok(stage, 'current_address', {});
  await ok(stage, 'address_name', { address: helperAt });
  await ok(stage, 'set_address_name', { address: helperAt, name: 'sdk_renamed' });
  await ok(stage, 'address_name', { address: helperAt });
  await ok(stage, 'set_comment', { address: mainAt, comment: 'sdk comment' });
  await ok(stage, 'comment', { address: mainAt });
  await ok(stage, 'set_inline_comment', { address: mainAt, comment: 'sdk inline' });
  await ok(stage, 'inline_comment', { address: mainAt });
  await ok(stage, 'set_bookmark', { address: mainAt, name: 'sdk' });
  await ok(stage, 'list_bookmarks', {});
  await ok(stage, 'unset_bookmark', { address: mainAt });
  await ok(stage, 'get_call_graph', { address: mainAt });
  await ok(stage, 'get_call_graph', { address: helperAt, direction: 'backward' });
  await ok(stage, 'read_bytes', { address: mainAt, length: 16 });
  await ok(stage, 'search_bytes', { pattern: '?? 89 e5', section: '.text' });
  await fail(stage, 'search_bytes', { pattern: '?? ??' });
  await ok(stage, 'compare_binaries', { left_target: elf, right_target: elf });
  await ok(stage, 'compare_binaries', { left_target: elf, right_target: elf, status: ['unchanged'], limit: 2 });
  await ok(stage, 'get_navigation_context', {});
  await ok(stage, 'inspect_address_context', { address: mainAt });
  await ok(stage, 'get_evidence_bundle', { evidence_ids: [evidenceID(callees)].filter(Boolean) });
  await ok(stage, 'get_evidence_bundle', {});
  await fail(stage, 'procedure_info', { procedure: 'rea_sdkclient_no_such_procedure' });
  await fail(stage, 'goto_address', { address: 'not-an-address' });
  await fail(stage, 'list_procedures', { limit: 0 });
  await fail(stage, 'get_evidence_bundle', { evidence_ids: ['ev_' + '0'.repeat(64)] });
  await fail(stage, 'inspect_address_context', { address: 'not-an-address' });
  await ok(stage, 'export_evidence_bundle', { path: join(plan.evidence_root, `bundle-${era}.json`) });
  await fail(stage, 'export_evidence_bundle', { path: join(plan.evidence_root, `bundle-${era}.json`) });
  await ok(stage, 'import_evidence_bundle', { path: join(plan.evidence_root, `bundle-${era}.json`) });
  await fail(stage, 'import_evidence_bundle', { path: join(plan.evidence_root, 'no-such-bundle.json') });

  // Artifact targets: a zip, then a directory, then their comparison.
  stage = 'zip';
  await open(stage, plan.zip);
  await badArguments(stage);
  const left = await ok(stage, 'inventory_artifact', {});
  const files = findObjects(left?.result, (o) => typeof o.occurrence_id === 'string' && o.entry_kind === 'file');
  const occ = files.map((o) => o.occurrence_id);
  rep.zip_file_occurrences = occ.length;
  const out = join(plan.extract_root, era);
  await ok(stage, 'extract_artifact', { approved: true, output_root: out, occurrence_ids: occ });
  await fail(stage, 'extract_artifact', { approved: true, output_root: out, occurrence_ids: occ });
  await fail(stage, 'extract_artifact', { approved: false, output_root: join(out, 'x'), occurrence_ids: occ });
  await fail(stage, 'inventory_artifact', { max_entries: 0 });
  stage = 'directory';
  await open(stage, plan.directory);
  await badArguments(stage);
  const right = await ok(stage, 'inventory_artifact', {});
  await ok(stage, 'compare_artifacts', { left_evidence_ids: [evidenceID(left)], right_evidence_ids: [evidenceID(right)] });
  await fail(stage, 'compare_artifacts', { left_evidence_ids: [evidenceID(left)], right_evidence_ids: ['ev_' + '0'.repeat(64)] });

  // Progress on a large binary: open_binary on gdb, then short calls; each
  // records whether the terminal update (progress == total) reached the
  // callback before callTool resolved.
  stage = 'progress';
  const watch = async (tool, args, target) => {
    const events = [];
    let resolved = false;
    const dropped0 = rep.client_errors.length;
    const before = changed;
    const sc = await ok(stage, tool, args, {
      onprogress: (p) => events.push({ progress: p.progress, total: p.total ?? null, message: p.message ?? null, after_result: resolved }),
    });
    resolved = true;
    if (target) await settle(stage, before);
    await sleep(50); // a late notification would be reported to onerror by now
    const last = events[events.length - 1];
    rep.progress.push({
      tool, path: args.path ?? null, events: events.length, last: last ?? null,
      terminal_before_result: !!last && last.total !== null && last.progress === last.total && !last.after_result,
      dropped: rep.client_errors.slice(dropped0).filter((m) => /progress/i.test(m)).length,
    });
    return sc;
  };
  for (let i = 0; i < 3; i++) {
    await watch('open_binary', { path: plan.gdb }, true);
    for (let j = 0; j < 5; j++) await watch('list_segments', {}, false);
    await open(stage, plan.fixture);
  }

  stage = 'closed';
  const before = changed;
  await ok(stage, 'close_binary', {});
  await settle(stage, before);
  await client.close();
  return rep;
}

const report = {
  sdk_version: JSON.parse(readFileSync(join(plan.sdk_dir, 'package.json'), 'utf8')).version,
  sdk_latest_protocol_version: LATEST_PROTOCOL_VERSION,
  sdk_supported_protocol_versions: SUPPORTED_PROTOCOL_VERSIONS,
  node_version: process.version,
  eras: [],
};
for (const [i, era] of ['2025-11-25', MODERN].entries()) {
  report.eras.push(await runEra(era, join(plan.ledger_dir, `ledger-${i}.db`)));
}
process.stdout.write(JSON.stringify(report) + '\n');
