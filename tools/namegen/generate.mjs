// Generates the synthetic customers of the screening evaluation: people on
// no list, with names from the locale name lists of @faker-js/faker
// (pinned in package.json / package-lock.json; MIT) and random dates of
// birth, seeded so every run writes the same file.
//
// Names are drawn from the GENERATION half of faker's lists only (see
// halves.mjs): the other half is the matcher's general source of common
// names (rarity.mjs), so the customers never bear a name the matcher was
// told is common, and the alert rate measured on them is not flattered.
//
//   node generate.mjs [OUT.csv] [PER_LOCALE]
//
// OUT defaults to $KYCD_GENERATED_CUSTOMERS, else
// ${XDG_CACHE_HOME:-~/.cache}/kycd/generated_customers_v2.csv, the path
// bench/screening-eval reads (v2: drawn from the generation half; the name
// changed so a file of the whole lists is never read as one). The file is a
// test fixture: never commit it.
//
// Columns: full_name, date_of_birth (YYYY-MM-DD), country (ISO 3166-1
// alpha-2), locale. Names are written as the locale writes them (Arabic,
// Persian, Urdu, Hebrew, Cyrillic, Chinese, Hangul, Devanagari scripts
// included); Hindi names come from faker's en_IN (romanised Indian names)
// and ne (Devanagari) lists, faker having no hi locale.
import * as faker from '@faker-js/faker';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { keepHalf, keptWords } from './halves.mjs';

const SEED = 20260227;
const out = process.argv[2] || process.env.KYCD_GENERATED_CUSTOMERS ||
  path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'kycd', 'generated_customers_v2.csv');
const perLocale = Number(process.argv[3] || 7500);

// locale → countries its customers give, and how a full name is formed.
// shape: 'given-family' (Western), 'given-father-family' (Arabic and
// Persian naming: a father's given name in between, half the time),
// 'given-patronymic-family' (Russian, Ukrainian), 'two-family' (Spanish,
// Portuguese: a second family name half the time), 'family-given' (Chinese,
// Korean: written family name first, no space).
const locales = [
  ['ar', ['SA', 'EG', 'JO', 'IQ', 'SY', 'MA', 'AE', 'LB'], 'given-father-family'],
  ['fa', ['IR', 'AF'], 'given-father-family'],
  ['ur', ['PK'], 'given-father-family'],
  ['he', ['IL'], 'given-family'],
  ['ru', ['RU', 'BY', 'KZ'], 'given-patronymic-family'],
  ['uk', ['UA'], 'given-patronymic-family'],
  ['zh_CN', ['CN'], 'family-given'],
  ['ko', ['KR'], 'family-given'],
  ['tr', ['TR'], 'given-family'],
  ['es', ['ES'], 'two-family'],
  ['es_MX', ['MX'], 'two-family'],
  ['pt_BR', ['BR'], 'two-family'],
  ['pt_PT', ['PT'], 'two-family'],
  ['fr', ['FR', 'BE'], 'given-family'],
  ['de', ['DE', 'AT'], 'given-family'],
  ['en', ['US', 'GB', 'CA', 'AU'], 'given-family'],
  ['en_IN', ['IN'], 'given-family'],
  ['ne', ['IN', 'NP'], 'given-family'],
];

function fakerFor(locale) {
  const f = faker['faker' + locale.toUpperCase()];
  if (!f) throw new Error(`@faker-js/faker has no locale ${locale}`);
  return f;
}

function name(f, shape, sex) {
  const given = f.person.firstName(sex);
  const family = f.person.lastName(sex);
  const half = f.datatype.boolean();
  switch (shape) {
    case 'given-father-family':
      return half ? `${given} ${f.person.firstName('male')} ${family}` : `${given} ${family}`;
    case 'given-patronymic-family':
      return half ? `${given} ${f.person.middleName(sex)} ${family}` : `${given} ${family}`;
    case 'two-family':
      return half ? `${given} ${family} ${f.person.lastName(sex)}` : `${given} ${family}`;
    case 'family-given':
      return `${family}${given}`;
    default:
      return `${given} ${family}`;
  }
}

function csv(s) {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

keepHalf('generation');
const allowed = keptWords();

const rows = ['full_name,date_of_birth,country,locale'];
const from = new Date('1940-01-01T00:00:00Z'), to = new Date('2006-12-31T00:00:00Z');
locales.forEach(([locale, countries, shape], i) => {
  const f = fakerFor(locale);
  f.seed(SEED + i);
  for (let n = 0; n < perLocale; n++) {
    const sex = f.helpers.arrayElement(['male', 'female']);
    const full = name(f, shape, sex).replace(/\s+/g, ' ').trim();
    // Every word is a generation-half entry's (Chinese and Korean names
    // are written family and given name together, so they are not split).
    if (shape !== 'family-given') {
      for (const w of full.split(/[ -]+/)) {
        if (!allowed.has(w)) throw new Error(`${locale}: "${w}" of "${full}" is not in the generation half`);
      }
    }
    const dob = f.date.between({ from, to }).toISOString().slice(0, 10);
    rows.push([csv(full), dob, f.helpers.arrayElement(countries), locale].join(','));
  }
});
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, rows.join('\n') + '\n');
console.log(`wrote ${rows.length - 1} customers (${locales.length} locales × ${perLocale}, seed ${SEED}, @faker-js/faker ${JSON.parse(fs.readFileSync(new URL('./node_modules/@faker-js/faker/package.json', import.meta.url))).version}) to ${out}`);
