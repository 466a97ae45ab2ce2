// Writes the RARITY half of @faker-js/faker's person name lists (see
// halves.mjs), the general source of name frequencies across cultures
// from which the screening matcher's table of common name parts is built:
//
//   node rarity.mjs [OUT.tsv]
//   cd ../.. && go test ./screening -run TestNameFreqTable -update
//
// OUT defaults to ../../screening/testdata/namefreq_source.tsv (committed:
// the table's source, MIT, see the header it writes). The second command
// normalises each name as the matcher does and writes the table the binary
// embeds (screening/namefreq.tsv).
//
// Columns: locale, list (first_name, last_name, middle_name), size (the
// whole list's entries, both halves: a name's share of the locale's
// draws is 1/size), name as the locale writes it.
import fs from 'node:fs';
import { lists, half, SALT } from './halves.mjs';

const out = process.argv[2] || new URL('../../screening/testdata/namefreq_source.tsv', import.meta.url).pathname;
const version = JSON.parse(fs.readFileSync(new URL('./node_modules/@faker-js/faker/package.json', import.meta.url))).version;
const rows = [
  `# The rarity half of the person name lists of @faker-js/faker ${version} (https://github.com/faker-js/faker, MIT licence,`,
  '# Faker - Copyright (c) 2022-2025 and faker.js - Copyright (c) 2011-2020, their contributors; see its LICENSE), split by',
  `# tools/namegen/halves.mjs (salt ${SALT}); written by tools/namegen/rarity.mjs. Do not edit.`,
  'locale\tlist\tsize\tname',
];
let n = 0;
for (const [locale, kind, entries] of lists()) {
  for (const e of entries.filter((x) => half(x) === 'rarity').sort()) {
    if (/[\t\n]/.test(e)) throw new Error(`unexpected whitespace in ${JSON.stringify(e)}`);
    rows.push([locale, kind, entries.length, e].join('\t'));
    n++;
  }
}
fs.writeFileSync(out, rows.join('\n') + '\n');
console.log(`wrote ${n} names (rarity half of @faker-js/faker ${version}) to ${out}`);
