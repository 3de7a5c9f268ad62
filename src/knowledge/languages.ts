/**
 * The PostgreSQL text search configuration for a language as tickets and articles spell it (two
 * or three lowercase letters, ISO 639-1 or 639-2/3): its stemmer and stop words. A language
 * PostgreSQL has no configuration for, or none given, is searched with `simple` (words as
 * written, lower-cased). Pure.
 */
const CONFIGS: Record<string, readonly string[]> = {
  arabic: ['ar', 'ara'],
  armenian: ['hy', 'hye', 'arm'],
  basque: ['eu', 'eus', 'baq'],
  catalan: ['ca', 'cat'],
  danish: ['da', 'dan'],
  dutch: ['nl', 'nld', 'dut'],
  english: ['en', 'eng'],
  finnish: ['fi', 'fin'],
  french: ['fr', 'fra', 'fre'],
  german: ['de', 'deu', 'ger'],
  greek: ['el', 'ell', 'gre'],
  hindi: ['hi', 'hin'],
  hungarian: ['hu', 'hun'],
  indonesian: ['id', 'ind'],
  irish: ['ga', 'gle'],
  italian: ['it', 'ita'],
  lithuanian: ['lt', 'lit'],
  nepali: ['ne', 'nep'],
  norwegian: ['no', 'nor', 'nb', 'nob', 'nn', 'nno'],
  portuguese: ['pt', 'por'],
  romanian: ['ro', 'ron', 'rum'],
  russian: ['ru', 'rus'],
  serbian: ['sr', 'srp'],
  spanish: ['es', 'spa'],
  swedish: ['sv', 'swe'],
  tamil: ['ta', 'tam'],
  turkish: ['tr', 'tur'],
  yiddish: ['yi', 'yid'],
};

const BY_LANGUAGE = new Map(Object.entries(CONFIGS).flatMap(([config, codes]) => codes.map((code) => [code, config] as const)));

export const SIMPLE_CONFIG = 'simple';

/** `english` for `en` or `eng`, …; `simple` for null or a language without a configuration. */
export function textSearchConfig(language: string | null | undefined): string {
  return (language && BY_LANGUAGE.get(language.toLowerCase())) || SIMPLE_CONFIG;
}

/** Every configuration this map names (they ship with PostgreSQL). */
export const TEXT_SEARCH_CONFIGS: readonly string[] = [SIMPLE_CONFIG, ...Object.keys(CONFIGS)];
