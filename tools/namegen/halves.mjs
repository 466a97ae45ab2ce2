// The fixed split of @faker-js/faker's person name lists into two halves:
// the RARITY half, from which the screening matcher's table of common name
// parts is built (rarity.mjs → screening/namefreq), and the GENERATION half,
// from which the synthetic customers of the evaluation are drawn
// (generate.mjs). A name is in one half only, in every locale's lists, so
// the generated customers' names are not the names the matcher was told
// are common, and the evaluation is not flattered by them.
//
// The half is a fixed hash (FNV-1a, 32 bits, with a salt that is never
// tuned) of the entry folded to lower case without diacritics, so Müller
// and Muller, or María in es and pt lists, fall in the same half. Entries
// of different scripts (Мария, Maria) are different keys: a name can sit in
// both halves through two scripts (see docs/screening.md).
import * as faker from '@faker-js/faker';

export const SALT = 'kycd-namefreq-split-2026';

export function key(entry) {
  return entry.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

function fnv1a(s) {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(s)) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

// half is 'rarity' or 'generation'.
export function half(entry) {
  return fnv1a(SALT + key(entry)) % 2 === 0 ? 'rarity' : 'generation';
}

// The locales whose name lists are read: the cultures issue 25 names
// (Hindi names from en_IN, romanised, and ne, Devanagari: faker has no hi).
export const LOCALES = ['ar', 'fa', 'ur', 'he', 'ru', 'uk', 'zh_CN', 'ko', 'tr', 'es', 'es_MX',
  'pt_BR', 'pt_PT', 'fr', 'de', 'en', 'en_IN', 'ne'];

export const KINDS = ['first_name', 'last_name', 'middle_name'];

// lists yields [locale, kind, entries] for every name list of the
// locales, each list the union of its generic, female and male lists.
export function* lists() {
  for (const locale of LOCALES) {
    const person = faker[locale]?.person;
    if (!person) throw new Error(`@faker-js/faker has no person data for ${locale}`);
    for (const kind of KINDS) {
      const def = person[kind];
      if (!def) continue;
      const arrays = Array.isArray(def) ? [def] : Object.values(def).filter(Array.isArray);
      yield [locale, kind, [...new Set(arrays.flat())]];
    }
  }
}

// keepHalf filters every person name list of every locale definition in
// place, keeping the entries of one half: faker's locale instances read
// these arrays, so fakerAR and the others then draw from that half only.
// generate.mjs checks that every name it wrote is made of kept entries,
// so a list read through a fallback locale outside LOCALES would show.
export function keepHalf(which) {
  const seen = new Set();
  for (const name of LOCALES) {
    const def = faker[name];
    for (const kind of KINDS) {
      const d = def.person[kind];
      if (!d) continue;
      for (const arr of Array.isArray(d) ? [d] : Object.values(d)) {
        if (!Array.isArray(arr) || seen.has(arr)) continue;
        seen.add(arr);
        const kept = arr.filter((e) => half(e) === which);
        if (kept.length === 0) throw new Error(`${name}.person.${kind}: no entry in the ${which} half`);
        arr.splice(0, arr.length, ...kept);
      }
    }
  }
}

// keptWords is the set of words of the entries keepHalf kept.
export function keptWords() {
  const words = new Set();
  for (const [, , entries] of lists()) {
    for (const e of entries) for (const w of e.split(/[\s-]+/)) words.add(w);
  }
  return words;
}
