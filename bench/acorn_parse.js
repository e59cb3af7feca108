// Parses JavaScript files with acorn, the yardstick of
// bench/jsapp_acorn.sh (BENCHMARKS.md, issue 23).
//
//   node bench/acorn_parse.js ACORN_DIR LIST_FILE [PASSES]
//
// ACORN_DIR is an installed acorn package (node_modules/acorn); LIST_FILE
// names one file per line. Every file is read first, then parsed: the
// parse figures cover acorn alone, never the disk or node's start-up (the
// caller times the whole process itself). Pass 1 is what one fresh process
// pays (acorn's code not yet optimized by the JIT); later passes parse the
// same sources again, warm. Prints one JSON object on stdout.
"use strict";

const fs = require("fs");
const path = require("path");

const [acornDir, listFile, passArg] = process.argv.slice(2);
if (!acornDir || !listFile) {
  process.stderr.write("usage: node acorn_parse.js ACORN_DIR LIST_FILE [PASSES]\n");
  process.exit(2);
}
const acorn = require(path.resolve(acornDir));
const passes = Math.max(1, Number(passArg || 1));

const t0 = process.hrtime.bigint();
const files = fs.readFileSync(listFile, "utf8").split("\n").filter((l) => l !== "");
const sources = files.map((f) => fs.readFileSync(f, "utf8"));
const readNs = process.hrtime.bigint() - t0;
let bytes = 0;
for (const f of files) bytes += fs.statSync(f).size;

// A .mjs file is a module; any other is tried as a script, then as a module
// (what a file that fails both ways costs is counted too).
function parseOne(file, src) {
  const base = { ecmaVersion: "latest", allowHashBang: true, allowReturnOutsideFunction: true };
  if (file.endsWith(".mjs")) {
    acorn.parse(src, { ...base, sourceType: "module" });
    return;
  }
  try {
    acorn.parse(src, { ...base, sourceType: "script" });
  } catch (e) {
    acorn.parse(src, { ...base, sourceType: "module" });
  }
}

const out = { acorn_version: acorn.version, files: files.length, bytes, read_ms: Number(readNs) / 1e6, passes: [] };
for (let p = 0; p < passes; p++) {
  let failures = 0;
  const c0 = process.cpuUsage();
  const w0 = process.hrtime.bigint();
  for (let i = 0; i < files.length; i++) {
    try {
      parseOne(files[i], sources[i]);
    } catch (e) {
      failures++;
    }
  }
  const wall = Number(process.hrtime.bigint() - w0) / 1e6;
  const c = process.cpuUsage(c0);
  out.passes.push({ parse_ms: wall, cpu_ms: (c.user + c.system) / 1e3, failures });
}
process.stdout.write(JSON.stringify(out) + "\n");
