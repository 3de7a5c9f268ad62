import { ACTION_TYPES, TRIGGER_TYPES, type TriggerType } from '../../../src/graph/index.ts';
import { actionChoices, actionFields, choiceOf, newActionData, scheduleFields, switchChoice, type Choice, type FieldSpec } from '../model/fields.ts';
import { fieldMessages, unplacedMessages, type FieldIssue } from '../model/issues.ts';
import { ConditionEditor } from './ConditionEditor.tsx';
import { Field } from './Field.tsx';
import { ParamField } from './ParamField.tsx';

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
  const keepLabel = (next: Data) => ({ ...next, ...(data.label !== undefined ? { label: data.label } : {}) });
  const shown: string[] = ['label'];
  let body: React.ReactNode;
  if (kind === 'trigger') {
    const fields = data.triggerType === 'scheduled' ? scheduleFields() : [];
    shown.push('triggerType', ...fields.map((f) => f.key));
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
        {fields.map((spec) => (
          <ParamField key={spec.key} spec={spec} data={data} siblings={fields} set={set} issues={issues} triggerType={triggerType} />
        ))}
      </>
    );
  } else if (kind === 'condition') {
    shown.push('field', 'operator', 'value', 'caseSensitive', 'match', 'conditions');
    body = <ConditionEditor data={data} path="" issues={issues} triggerType={triggerType} onChange={(d, field) => onChange(keepLabel(d), field)} top />;
  } else {
    const actionType = String(data.actionType);
    const fields = actionFields(actionType);
    const choices = actionChoices(actionType);
    shown.push('actionType', ...fields.map((f) => f.key));
    body = (
      <>
        <Field label="Action" messages={fieldMessages(issues, 'actionType')}>
          {(id) => (
            <select id={id} name="actionType" value={actionType} onChange={(e) => onChange(keepLabel(newActionData(e.target.value)), 'actionType')}>
              {ACTION_TYPES.map((t) => (
                <option key={t} value={t}>{t}</option>
              ))}
            </select>
          )}
        </Field>
        {choices ? (
          <ChoiceFields choices={choices} fields={fields} data={data} set={set} issues={issues} triggerType={triggerType} onSwitch={(next) => onChange(next, 'choice')} />
        ) : (
          fields.map((spec) => <ParamField key={spec.key} spec={spec} data={data} siblings={fields} set={set} issues={issues} triggerType={triggerType} />)
        )}
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

/**
 * Parameters that are exclusive choices (a delay of seconds, until, or business time): one
 * is picked, and only its fields are shown (besides those every choice takes).
 */
function ChoiceFields({ choices, fields, data, set, issues, triggerType, onSwitch }: { choices: Choice[]; fields: FieldSpec[]; data: Data; set: (key: string, value: unknown) => void; issues: FieldIssue[] | undefined; triggerType: TriggerType; onSwitch: (data: Data) => void }) {
  const current = choiceOf(data, choices);
  const inChoices = new Set(choices.flatMap((c) => c.keys));
  const visible = fields.filter((f) => !inChoices.has(f.key) || (current >= 0 && choices[current].keys.includes(f.key)));
  return (
    <>
      <fieldset className="choice" data-choices={String(data.actionType)}>
        <legend>One of</legend>
        {choices.map((c, i) => (
          <label key={c.label} className="inline">
            <input type="radio" name="choice" value={c.keys.join('+')} checked={current === i} onChange={() => onSwitch(switchChoice(data, choices, i, fields))} />
            {c.label}
          </label>
        ))}
      </fieldset>
      {visible.map((spec) => (
        // Within the choice made, its parameters are all needed.
        <ParamField key={spec.key} spec={inChoices.has(spec.key) ? { ...spec, required: true } : spec} data={data} siblings={fields} set={set} issues={issues} triggerType={triggerType} />
      ))}
    </>
  );
}
