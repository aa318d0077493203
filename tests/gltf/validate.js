// The Khronos glTF validator over files smdmx wrote: a line per file with its errors and
// warnings ("path: 0 errors, 0 warnings"), and each issue after it. Exit 1 when a file has an
// error or a warning, 2 when one cannot be read.
// usage: node validate.js FILE.glb|FILE.gltf...
'use strict';
const fs = require('fs');
const validator = require('gltf-validator');

async function main(files) {
	let bad = 0;
	for (const file of files) {
		let report;
		try {
			report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), { maxIssues: 20 });
		} catch (e) {
			console.log(`${file}: cannot be validated: ${e}`);
			process.exitCode = 2;
			continue;
		}
		const issues = report.issues;
		console.log(`${file}: ${issues.numErrors} errors, ${issues.numWarnings} warnings`);
		for (const m of issues.messages)
			if (m.severity <= 1) console.log(`  ${m.severity ? 'warning' : 'error'} ${m.code} ${m.pointer || ''}: ${m.message}`);
		if (issues.numErrors || issues.numWarnings) bad++;
	}
	if (bad && !process.exitCode) process.exitCode = 1;
}

main(process.argv.slice(2));
