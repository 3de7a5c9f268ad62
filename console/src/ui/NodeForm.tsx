import { useId, useRef, useState } from 'react';
import { ACTION_TYPES, OPERATORS, TRIGGER_TYPES, type TriggerType } from '../../../src/graph/index.ts';
import { CHANGE_FIELDS, contextPaths, insertPlaceholder } from '../model/context.ts';
import { actionFields, newActionData, newConditionData, operatorValue, scheduleFields, type FieldSpec } from '../model/fields.ts';
import { fieldMessages, unplacedMessages, type FieldIssue } from '../model/issues.ts';

type Data = Record<string, unknown>;

export type NodeFormProps = {
  nodeId: string;
  kind: 'trigger' | 'condition' | 'action';
  data: Data;
  triggerType: TriggerType;
  issues: FieldIssue[] | undefined;
  /** `field` names what changed, so typing in one field is one undo step. */
  onChange: (data: Data, field: string) => void;
  onTriggerTypeChange: (type: TriggerType) => void;
};

/** The form of the selected node, built from what src/graph accepts (model/fields.ts). */
export function NodeForm({ nodeId, kind, data, triggerType, issues, onChange, onTriggerTypeChange }: NodeFormProps) {
  const set = (key: string, value: unknown) => {
    const next = { ...data };
    if (value === undefined) delete next[key];
    else next[key] = value;
    onChange(next, key);
  };
  const shown: string[] = ['label'];
  let body: React.ReactNode;
  if (kind === 'trigger') {
    shown.push('triggerType', ...(data.triggerType === 'scheduled' ? scheduleFields().map((f) => f.key) : []));
    body = (
      <>
        <Field label="Trigger" messages={fieldMessages(issues, 'triggerType')}>
          {(id) => (
            <select id={id} name="triggerType" value={String(data.triggerType ?? triggerType)} onChange={(e) => onTriggerTypeChange(e.target.value as TriggerType)}>
              {TRIGGER_TYPES.map((t) => (
                <option key={t} value={t}>{t}</option>
              ))}
            </select>
          )}
        </Field>
        {data.triggerType === 'scheduled' &&
          scheduleFields().map((spec) => <ParamField key={spec.key} spec={spec} data={data} set={set} issues={issues} triggerType={triggerType} />)}
      </>
    );
  } else if (kind === 'condition') {
    shown.push('field', 'operator', 'value', 'caseSensitive', 'match', 'conditions');
    body = <ConditionEditor data={data} path="" issues={issues} triggerType={triggerType} onChange={(d, field) => onChange({ ...d, ...(data.label !== undefined ? { label: data.label } : {}) }, field)} top />;
  } else {
    const fields = actionFields(String(data.actionType));
    shown.push('actionType', ...fields.map((f) => f.key));
    body = (
      <>
        <Field label="Action" messages={fieldMessages(issues, 'actionType')}>
          {(id) => (
            <select
              id={id}
              name="actionType"
              value={String(data.actionType)}
              onChange={(e) => onChange({ ...newActionData(e.target.value), ...(data.label !== undefined ? { label: data.label } : {}) }, 'actionType')}
            >
              {ACTION_TYPES.map((t) => (
                <option key={t} value={t}>{t}</option>
              ))}
            </select>
          )}
        </Field>
        {fields.map((spec) => (
          <ParamField key={spec.key} spec={spec} data={data} set={set} issues={issues} triggerType={triggerType} />
        ))}
      </>
    );
  }
  const other = unplacedMessages(issues, shown);
  return (
    <form className="node-form stack" onSubmit={(e) => e.preventDefault()} data-form-node={nodeId}>
      <h3>
        <span className="kind">{kind}</span> <code>{nodeId}</code>
      </h3>
      {other.length > 0 && (
        <ul className="field-errors" role="alert">
          {other.map((m, i) => (
            <li key={i}>{m}</li>
          ))}
        </ul>
      )}
      <Field label="Label (shown on the canvas)" messages={fieldMessages(issues, 'label')}>
        {(id) => (
          <input id={id} name="label" value={typeof data.label === 'string' ? data.label : ''} maxLength={200} onChange={(e) => set('label', e.target.value === '' ? undefined : e.target.value)} />
        )}
      </Field>
      {body}
    </form>
  );
}

function Field({ label, messages, children }: { label: string; messages: string[]; children: (id: string) => React.ReactNode }) {
  const id = useId();
  return (
    <div className={`field${messages.length ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children(id)}
      {messages.map((m, i) => (
        <p key={i} className="error-text field-error">{m}</p>
      ))}
    </div>
  );
}

/** A parameter's input, by the kind the validator says it is. */
function ParamField({ spec, data, set, issues, triggerType, prefix = '' }: { spec: FieldSpec; data: Data; set: (key: string, value: unknown) => void; issues: FieldIssue[] | undefined; triggerType: TriggerType; prefix?: string }) {
  const value = data[spec.key];
  const label = `${spec.key}${spec.required ? '' : ' (optional)'}`;
  const messages = fieldMessages(issues, prefix + spec.key);
  return (
    <Field label={label} messages={messages}>
      {(id) => {
        if (spec.kind === 'choice') {
          return (
            <select id={id} name={spec.key} value={value === undefined ? '' : String(value)} onChange={(e) => set(spec.key, e.target.value === '' ? undefined : e.target.value)}>
              {!spec.required && <option value="">—</option>}
              {spec.options!.map((o) => (
                <option key={o} value={o}>{o}</option>
              ))}
            </select>
          );
        }
        if (spec.kind === 'number') {
          return (
            <input
              id={id}
              name={spec.key}
              type="number"
              value={typeof value === 'number' ? value : ''}
              onChange={(e) => set(spec.key, e.target.value === '' ? (spec.required ? 0 : undefined) : Number(e.target.value))}
            />
          );
        }
        if (spec.kind === 'json') return <JsonInput id={id} name={spec.key} value={value} optional={!spec.required} onChange={(v) => set(spec.key, v)} />;
        return (
          <TextInput
            id={id}
            name={spec.key}
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
      }}
    </Field>
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Text, with the run's context offered as {{placeholders}} to insert at the caret. */
function TextInput({ id, name, value, multiline, placeholders, onChange }: { id: string; name: string; value: string; multiline: boolean; placeholders: string[]; onChange: (text: string) => void }) {
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

/** A condition: one test `{ field, operator, value }`, or a group of them (all / any). */
function ConditionEditor({ data, path, issues, triggerType, onChange, top = false }: { data: Data; path: string; issues: FieldIssue[] | undefined; triggerType: TriggerType; onChange: (d: Data, field: string) => void; top?: boolean }) {
  const listId = useId();
  const isGroup = Array.isArray(data.conditions);
  const p = (key: string) => `${path}${key}`;
  const { label: _label, ...own } = data;
  const toggle = (
    <label className="inline">
      <input
        type="checkbox"
        name={`${p('group')}`}
        checked={isGroup}
        onChange={(e) => onChange(e.target.checked ? { match: 'all', conditions: [own] } : ((data.conditions as Data[])[0] ?? newConditionData('equals')), p('match'))}
      />
      a group of conditions
    </label>
  );
  if (isGroup) {
    const list = data.conditions as Data[];
    return (
      <fieldset className="group">
        {top && toggle}
        <Field label="Match" messages={fieldMessages(issues, p('match'))}>
          {(id) => (
            <select id={id} name={p('match')} value={String(data.match)} onChange={(e) => onChange({ ...own, match: e.target.value }, p('match'))}>
              <option value="all">all of these hold</option>
              <option value="any">any of these holds</option>
            </select>
          )}
        </Field>
        {list.map((c, i) => (
          <div key={i} className="group-item">
            <ConditionEditor
              data={c}
              path={`${p('conditions')}[${i}].`}
              issues={issues}
              triggerType={triggerType}
              onChange={(d, field) => onChange({ ...own, conditions: list.map((x, j) => (j === i ? d : x)) }, field)}
            />
            <button type="button" className="link danger" onClick={() => onChange({ ...own, conditions: list.filter((_, j) => j !== i) }, p('conditions'))}>Remove</button>
          </div>
        ))}
        <div className="buttons">
          <button type="button" onClick={() => onChange({ ...own, conditions: [...list, newConditionData('equals')] }, p('conditions'))}>Add a condition</button>
          <button type="button" onClick={() => onChange({ ...own, conditions: [...list, { match: 'any', conditions: [newConditionData('equals')] }] }, p('conditions'))}>Add a group</button>
        </div>
      </fieldset>
    );
  }
  const operator = String(data.operator ?? 'equals');
  const valueKind = operatorValue(operator);
  const paths = operator.startsWith('changed') ? [...CHANGE_FIELDS] : contextPaths(triggerType);
  const set = (key: string, value: unknown) => {
    const next = { ...own };
    if (value === undefined) delete next[key];
    else next[key] = value;
    onChange(next, p(key));
  };
  return (
    <div className="stack">
      {top && toggle}
      <Field label="Field" messages={fieldMessages(issues, p('field'))}>
        {(id) => (
          <>
            <input id={id} name={p('field')} list={listId} value={typeof data.field === 'string' ? data.field : ''} onChange={(e) => set('field', e.target.value)} />
            <datalist id={listId}>
              {paths.map((x) => (
                <option key={x} value={x} />
              ))}
            </datalist>
          </>
        )}
      </Field>
      <Field label="Operator" messages={fieldMessages(issues, p('operator'))}>
        {(id) => (
          <select
            id={id}
            name={p('operator')}
            value={operator}
            onChange={(e) => {
              const kind = operatorValue(e.target.value);
              const next: Data = { ...own, operator: e.target.value };
              if (kind.kind === 'none') delete next.value;
              else if (kind.kind === 'list' && !Array.isArray(next.value)) next.value = next.value === undefined || next.value === '' ? [] : [next.value];
              else if (kind.kind === 'single' && (Array.isArray(next.value) || next.value === undefined)) next.value = Array.isArray(next.value) ? (next.value[0] ?? '') : '';
              onChange(next, p('operator'));
            }}
          >
            {OPERATORS.map((o) => (
              <option key={o} value={o}>{o.replace(/_/g, ' ')}</option>
            ))}
          </select>
        )}
      </Field>
      {valueKind.kind !== 'none' && (
        <Field label={valueKind.kind === 'list' ? 'Values (one a line)' : 'Value'} messages={fieldMessages(issues, p('value'))}>
          {(id) =>
            valueKind.kind === 'list' ? (
              <textarea
                id={id}
                name={p('value')}
                rows={3}
                value={Array.isArray(data.value) ? data.value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n') : ''}
                onChange={(e) => set('value', e.target.value === '' ? [] : e.target.value.split('\n'))}
              />
            ) : (
              <ScalarInput id={id} name={p('value')} value={data.value} numeric={valueKind.numeric} onChange={(v) => set('value', v)} />
            )
          }
        </Field>
      )}
      <label className="inline">
        <input type="checkbox" name={p('caseSensitive')} checked={data.caseSensitive === true} onChange={(e) => set('caseSensitive', e.target.checked ? true : undefined)} />
        case-sensitive
      </label>
      {fieldMessages(issues, p('caseSensitive')).map((m, i) => (
        <p key={i} className="error-text field-error">{m}</p>
      ))}
    </div>
  );
}

type ScalarType = 'text' | 'number' | 'boolean' | 'null';

/** One condition value, of the type chosen beside it (text, number, true/false, null). */
function ScalarInput({ id, name, value, numeric, onChange }: { id: string; name: string; value: unknown; numeric: boolean; onChange: (v: unknown) => void }) {
  const type: ScalarType = value === null ? 'null' : typeof value === 'boolean' ? 'boolean' : typeof value === 'number' ? 'number' : 'text';
  const convert = (to: ScalarType): unknown => {
    if (to === 'null') return null;
    if (to === 'boolean') return value === true || value === 'true';
    if (to === 'number') return Number.isFinite(Number(value)) ? Number(value) : 0;
    return value === null || value === undefined ? '' : String(value);
  };
  return (
    <div className="scalar">
      {type === 'boolean' ? (
        <select id={id} name={name} value={String(value)} onChange={(e) => onChange(e.target.value === 'true')}>
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      ) : type === 'null' ? (
        <input id={id} name={name} value="null" disabled />
      ) : (
        <input
          id={id}
          name={name}
          type={type === 'number' ? 'number' : 'text'}
          value={value === undefined ? '' : String(value)}
          placeholder={numeric ? 'a number, or a date like 2025-01-31' : undefined}
          onChange={(e) => onChange(type === 'number' ? (e.target.value === '' ? 0 : Number(e.target.value)) : e.target.value)}
        />
      )}
      <select aria-label="Type of the value" name={`${name}-type`} value={type} onChange={(e) => onChange(convert(e.target.value as ScalarType))}>
        <option value="text">text</option>
        <option value="number">number</option>
        <option value="boolean">true/false</option>
        <option value="null">null</option>
      </select>
    </div>
  );
}
