import { useId } from 'react';
import { NOW_FIELD, OPERATORS, type TriggerType } from '../../../src/graph/index.ts';
import { changeOperator, fieldOptions, newConditionData, operatorValue, type FieldOptions } from '../model/fields.ts';
import { fieldMessages, type FieldIssue } from '../model/issues.ts';
import { CalendarPicker } from './CalendarPicker.tsx';
import { Field } from './Field.tsx';
import { ParamField } from './ParamField.tsx';

type Data = Record<string, unknown>;

type Props = { data: Data; path: string; issues: FieldIssue[] | undefined; triggerType: TriggerType; onChange: (d: Data, field: string) => void; top?: boolean };

/** A condition: one test `{ field, operator, value }`, or a group of them (all / any). */
export function ConditionEditor({ data, path, issues, triggerType, onChange, top = false }: Props) {
  const isGroup = Array.isArray(data.conditions);
  const p = (key: string) => `${path}${key}`;
  const { label: _label, ...own } = data;
  const toggle = (
    <label className="inline">
      <input
        type="checkbox"
        name={`${p('group')}`}
        checked={isGroup}
        onChange={(e) => onChange(e.target.checked ? { match: 'all', conditions: [own] } : ((data.conditions as Data[])[0] ?? newConditionData('equals', triggerType)), p('match'))}
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
          <button type="button" onClick={() => onChange({ ...own, conditions: [...list, newConditionData('equals', triggerType)] }, p('conditions'))}>Add a condition</button>
          <button type="button" onClick={() => onChange({ ...own, conditions: [...list, { match: 'any', conditions: [newConditionData('equals', triggerType)] }] }, p('conditions'))}>Add a group</button>
        </div>
      </fieldset>
    );
  }
  const operator = String(data.operator ?? 'equals');
  const valueKind = operatorValue(operator);
  const set = (key: string, value: unknown) => {
    const next = { ...own };
    if (value === undefined) delete next[key];
    else next[key] = value;
    onChange(next, p(key));
  };
  return (
    <div className="stack">
      {top && toggle}
      <Field label="Field" messages={fieldMessages(issues, p('field'))} hint={data.field === NOW_FIELD ? <p className="hint small">now: the moment the condition is evaluated (in a dry run, its “at”)</p> : undefined}>
        {(id) => <FieldInput id={id} name={p('field')} value={data.field} options={fieldOptions(operator, triggerType)} onChange={(f) => set('field', f)} />}
      </Field>
      <Field label="Operator" messages={fieldMessages(issues, p('operator'))}>
        {(id) => (
          <select id={id} name={p('operator')} value={operator} onChange={(e) => onChange(changeOperator(own, e.target.value, triggerType), p('operator'))}>
            {OPERATORS.map((o) => (
              <option key={o} value={o}>{o.replace(/_/g, ' ')}</option>
            ))}
          </select>
        )}
      </Field>
      {valueKind.kind === 'object' ? (
        <ParamField spec={{ key: 'value', kind: 'object', required: true, fields: valueKind.fields, placeholders: false, multiline: false, sample: {} }} data={own} siblings={[]} set={set} issues={issues} triggerType={triggerType} prefix={path} label="Age" />
      ) : valueKind.kind === 'calendar' ? (
        <Field label="Calendar" messages={fieldMessages(issues, p('value'))}>
          {(id) => <CalendarPicker id={id} name={p('value')} value={data.value} optional={false} onChange={(v) => set('value', v ?? '')} />}
        </Field>
      ) : valueKind.kind !== 'none' ? (
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
      ) : null}
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

const DATA_PATH = '__data__';

/**
 * The field a condition tests: a choice where its operator takes only some (a date field or
 * now, a changed ticket field), with a `data.*` path written by hand where that is allowed;
 * else a path typed freely, with the context's paths suggested.
 */
function FieldInput({ id, name, value, options, onChange }: { id: string; name: string; value: unknown; options: FieldOptions; onChange: (field: string) => void }) {
  const listId = useId();
  const field = typeof value === 'string' ? value : '';
  if (!options.restricted) {
    return (
      <>
        <input id={id} name={name} list={listId} value={field} onChange={(e) => onChange(e.target.value)} />
        <datalist id={listId}>
          {options.options.map((x) => (
            <option key={x} value={x} />
          ))}
        </datalist>
      </>
    );
  }
  const isData = options.dataPath !== null && field.startsWith('data.');
  const listed = options.options.includes(field);
  return (
    <>
      <select id={id} name={name} value={isData ? DATA_PATH : field} onChange={(e) => onChange(e.target.value === DATA_PATH ? options.dataPath! : e.target.value)}>
        {!listed && !isData && <option value={field}>{field === '' ? 'Choose a field…' : field}</option>}
        {options.options.map((x) => (
          <option key={x} value={x}>{x === NOW_FIELD ? 'now (when the condition is evaluated)' : x}</option>
        ))}
        {options.dataPath !== null && <option value={DATA_PATH}>a path in data…</option>}
      </select>
      {isData && <input name={`${name}-data`} aria-label="Path in data" value={field} onChange={(e) => onChange(e.target.value)} />}
    </>
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
