import { useRef, useState } from 'react';
import type { TriggerType } from '../../../src/graph/index.ts';
import { contextPaths, insertPlaceholder } from '../model/context.ts';
import type { FieldSpec } from '../model/fields.ts';
import { fieldMessages, type FieldIssue } from '../model/issues.ts';
import { durationHint } from '../model/time.ts';
import { CalendarPicker } from './CalendarPicker.tsx';
import { MemberPicker } from './MemberPicker.tsx';
import { Field, parseJson } from './Field.tsx';

type Data = Record<string, unknown>;

export type ParamProps = {
  spec: FieldSpec;
  /** The object the parameter is a key of (node data, a ticketFilter, an age). */
  data: Data;
  /** The other fields of that object: a number of seconds counts open time when one of them names a calendar. */
  siblings: FieldSpec[];
  set: (key: string, value: unknown) => void;
  issues: FieldIssue[] | undefined;
  triggerType: TriggerType;
  /** Path of `data` within the node's data (`ticketFilter.`, `conditions[0].value.`), for the problems and the input names. */
  prefix?: string;
  /** What the field is called on the form, when not its key. */
  label?: string;
};

/** True when a field of the object names a calendar: its durations are then open time. */
export function countsOpenTime(data: Data, siblings: FieldSpec[]): boolean {
  return siblings.some((f) => f.kind === 'calendar' && Object.hasOwn(data, f.key));
}

/** A parameter's input, by the kind the validator says it is. */
export function ParamField({ spec, data, siblings, set, issues, triggerType, prefix = '', label: shownAs }: ParamProps) {
  const value = data[spec.key];
  const name = prefix + spec.key;
  const label = `${shownAs ?? spec.key}${spec.required ? '' : ' (optional)'}`;
  const messages = fieldMessages(issues, name);
  if (spec.kind === 'object') {
    return <ObjectField spec={spec} label={shownAs ?? spec.key} value={value} name={name} messages={messages} set={set} issues={issues} triggerType={triggerType} />;
  }
  const hint =
    spec.unit === 'seconds' ? (
      <p className="hint small" data-hint={name}>{durationHint(value, countsOpenTime(data, siblings)) ?? 'seconds'}</p>
    ) : undefined;
  return (
    <Field label={spec.unit === 'seconds' ? `${label}, in seconds` : label} messages={messages} hint={hint}>
      {(id) => {
        switch (spec.kind) {
          case 'choice':
            return (
              <select id={id} name={name} value={value === undefined ? '' : String(value)} onChange={(e) => set(spec.key, e.target.value === '' ? undefined : e.target.value)}>
                {!spec.required && <option value="">—</option>}
                {spec.options!.map((o) => (
                  <option key={o} value={o}>{o}</option>
                ))}
              </select>
            );
          case 'choices':
            return <ChoicesInput id={id} name={name} options={spec.options!} value={value} onChange={(v) => set(spec.key, v.length === 0 && !spec.required ? undefined : v)} />;
          case 'calendar':
            return <CalendarPicker id={id} name={name} value={value} optional={!spec.required} onChange={(v) => set(spec.key, v)} />;
          case 'members':
            return <MemberPicker id={id} name={name} value={value} onChange={(v) => set(spec.key, v)} />;
          case 'number':
            return (
              <input
                id={id}
                name={name}
                type="number"
                min={spec.unit === 'seconds' ? 0 : undefined}
                value={typeof value === 'number' ? value : ''}
                onChange={(e) => set(spec.key, e.target.value === '' ? (spec.required ? 0 : undefined) : Number(e.target.value))}
              />
            );
          case 'list':
            return <ListInput id={id} name={name} value={value} onChange={(v) => set(spec.key, v.length === 0 && !spec.required ? undefined : v)} />;
          case 'json':
            return <JsonInput id={id} name={name} value={value} optional={!spec.required} onChange={(v) => set(spec.key, v)} />;
          default:
            return (
              <TextInput
                id={id}
                name={name}
                value={typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value)}
                multiline={spec.multiline}
                placeholders={spec.placeholders ? contextPaths(triggerType) : []}
                onChange={(text) => {
                  if (text === '' && !spec.required) return set(spec.key, undefined);
                  if (spec.kind === 'textOrJson') {
                    const parsed = parseJson(text);
                    return set(spec.key, parsed !== undefined && typeof parsed === 'object' && parsed !== null ? parsed : text);
                  }
                  set(spec.key, text);
                }}
              />
            );
        }
      }}
    </Field>
  );
}

/** An object of its own fields (a schedule's ticketFilter, an age); an optional one is there or not, by its checkbox. */
function ObjectField({ spec, label, value, name, messages, set, issues, triggerType }: { spec: FieldSpec; label: string; value: unknown; name: string; messages: string[]; set: (key: string, value: unknown) => void; issues: FieldIssue[] | undefined; triggerType: TriggerType }) {
  const present = typeof value === 'object' && value !== null && !Array.isArray(value);
  const own = present ? (value as Data) : {};
  const setOwn = (key: string, v: unknown) => {
    const next = { ...own };
    if (v === undefined) delete next[key];
    else next[key] = v;
    set(spec.key, next);
  };
  return (
    <fieldset className={`object-field${messages.length ? ' invalid' : ''}`} data-object={name}>
      <legend>
        {spec.required ? (
          label
        ) : (
          <label className="inline">
            <input type="checkbox" name={`${name}-present`} checked={present} onChange={(e) => set(spec.key, e.target.checked ? {} : undefined)} />
            {label}
          </label>
        )}
      </legend>
      {present &&
        spec.fields!.map((f) => <ParamField key={f.key} spec={f} data={own} siblings={spec.fields!} set={setOwn} issues={issues} triggerType={triggerType} prefix={`${name}.`} />)}
      {fieldMessages(issues, name)
        .filter((m) => !spec.fields!.some((f) => fieldMessages(issues, `${name}.${f.key}`).includes(m)))
        .map((m, i) => (
          <p key={i} className="error-text field-error">{m}</p>
        ))}
    </fieldset>
  );
}

/** Some of a list of values, as checkboxes. */
function ChoicesInput({ id, name, options, value, onChange }: { id: string; name: string; options: readonly string[]; value: unknown; onChange: (v: string[]) => void }) {
  const chosen = Array.isArray(value) ? value.map(String) : [];
  return (
    <div className="choices" id={id}>
      {options.map((o) => (
        <label key={o} className="inline">
          <input
            type="checkbox"
            name={name}
            value={o}
            checked={chosen.includes(o)}
            onChange={(e) => onChange(e.target.checked ? options.filter((x) => x === o || chosen.includes(x)) : chosen.filter((x) => x !== o))}
          />
          {o}
        </label>
      ))}
    </div>
  );
}

/** A list of texts, one a line. */
function ListInput({ id, name, value, onChange }: { id: string; name: string; value: unknown; onChange: (v: string[]) => void }) {
  const [text, setText] = useState(() => (Array.isArray(value) ? value.map(String).join('\n') : ''));
  return (
    <textarea
      id={id}
      name={name}
      rows={3}
      placeholder="one a line"
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        onChange(e.target.value.split('\n').filter((line) => line !== ''));
      }}
    />
  );
}

/** Text, with the run's context offered as {{placeholders}} to insert at the caret. */
export function TextInput({ id, name, value, multiline, placeholders, onChange }: { id: string; name: string; value: string; multiline: boolean; placeholders: string[]; onChange: (text: string) => void }) {
  const ref = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const insert = (path: string) => {
    const el = ref.current;
    const { text, caret } = insertPlaceholder(value, el?.selectionStart ?? value.length, path);
    onChange(text);
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(caret, caret);
    });
  };
  return (
    <>
      {multiline ? (
        <textarea ref={ref} id={id} name={name} rows={4} value={value} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <input ref={ref} id={id} name={name} value={value} onChange={(e) => onChange(e.target.value)} />
      )}
      {placeholders.length > 0 && (
        <select className="placeholder-picker" aria-label={`Insert a placeholder into ${name}`} value="" onChange={(e) => e.target.value && insert(e.target.value)}>
          <option value="">Insert {'{{placeholder}}'}…</option>
          {placeholders.map((p) => (
            <option key={p} value={p}>{`{{${p}}}`}</option>
          ))}
        </select>
      )}
    </>
  );
}

/** Any JSON value; text that is not JSON is kept as text (and the validator says if that will not do). */
function JsonInput({ id, name, value, optional, onChange }: { id: string; name: string; value: unknown; optional: boolean; onChange: (v: unknown) => void }) {
  const [text, setText] = useState(() => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value, null, 2)));
  return (
    <textarea
      id={id}
      name={name}
      rows={4}
      className="code"
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        if (e.target.value.trim() === '') return onChange(optional ? undefined : {});
        const parsed = parseJson(e.target.value);
        onChange(parsed === undefined ? e.target.value : parsed);
      }}
    />
  );
}
