import { textSearchConfig } from '../knowledge/languages.ts';

/**
 * Whether a customer's message asks for a person: a word for a human, an agent or a person, in
 * the ticket's language or in English (the one every desk hears). A false alarm costs a hand-off
 * to a person, a miss costs a customer who asked for one an answer from the AI: the lists lean
 * to the first. Pure.
 */
const ENGLISH = ['human', 'humans', 'agent', 'agents', 'person', 'persons', 'representative', 'representatives', 'operator', 'operators'];

const WORDS: Record<string, readonly string[]> = {
  english: ENGLISH,
  german: ['mensch', 'menschen', 'menschlich', 'menschlichen', 'mitarbeiter', 'mitarbeiterin', 'person', 'personen', 'agent', 'agentin', 'berater', 'beraterin', 'sachbearbeiter'],
  french: ['humain', 'humaine', 'humains', 'agent', 'agents', 'personne', 'conseiller', 'conseillère', 'opérateur', 'opératrice'],
  spanish: ['humano', 'humana', 'humanos', 'agente', 'agentes', 'persona', 'personas', 'operador', 'operadora', 'asesor', 'asesora'],
  italian: ['umano', 'umana', 'persona', 'persone', 'operatore', 'operatrice', 'agente', 'consulente'],
  portuguese: ['humano', 'humana', 'pessoa', 'pessoas', 'atendente', 'agente', 'operador', 'operadora'],
  dutch: ['mens', 'mensen', 'medewerker', 'medewerkster', 'persoon', 'agent'],
  danish: ['menneske', 'medarbejder', 'person', 'agent'],
  swedish: ['människa', 'handläggare', 'person', 'agent', 'medarbetare'],
  norwegian: ['menneske', 'medarbeider', 'person', 'agent', 'saksbehandler'],
  finnish: ['ihminen', 'ihmisen', 'ihmistä', 'henkilö', 'asiakaspalvelija', 'agentti'],
  russian: ['человек', 'человека', 'оператор', 'оператора', 'агент', 'сотрудник', 'консультант'],
  turkish: ['insan', 'temsilci', 'kişi', 'operatör', 'yetkili'],
};

const wordsOf = (text: string) => text.toLowerCase().normalize('NFC').match(/[\p{L}\p{N}]+/gu) ?? [];

export function asksForPerson(text: string, language: string | null): boolean {
  const own = WORDS[textSearchConfig(language)] ?? [];
  const wanted = new Set([...ENGLISH, ...own]);
  return wordsOf(text).some((w) => wanted.has(w));
}
