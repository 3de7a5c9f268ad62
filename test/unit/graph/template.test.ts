import { describe, expect, it } from 'vitest';
import { renderTemplate, renderTemplateDeep, templatePaths } from '../../../src/graph/index.ts';

const ctx = {
  ticket: { customerName: 'Ann', tags: ['vip', 'billing'], priority: 'high', customerEmail: 'a@b.c', assignedTo: null },
  data: { n: 3, ok: false, obj: { a: 1 }, mixed: [1, { b: 2 }] },
  tag: 'urgent',
};

describe('renderTemplate', () => {
  it.each([
    // fills placeholders, with or without spaces
    ['Hi {{ticket.customerName}}!', 'Hi Ann!'],
    ['Hi {{  ticket.customerName  }}!', 'Hi Ann!'],
    ['{{tag}}/{{ticket.priority}}', 'urgent/high'],
    // renders numbers, booleans, scalar arrays, objects and missing values
    ['{{data.n}} {{data.ok}}', '3 false'],
    ['{{ticket.tags}}', 'vip, billing'],
    ['{{data.obj}}', '{"a":1}'],
    ['{{data.mixed}}', '[1,{"b":2}]'],
    ['[{{ticket.assignedTo}}][{{data.nope}}][{{ }}]', '[][][]'],
    // leaves unterminated or brace-containing placeholders literally
    ['Hi {{ ticket.customerName', 'Hi {{ ticket.customerName'],
    ['a {{ b {{tag}}', 'a {{ b urgent'],
    ['no placeholders', 'no placeholders'],
    // does not reach prototype properties
    ['{{ticket.constructor}}{{data.__proto__}}', ''],
  ])('renders %j as %j', (template, expected) => {
    expect(renderTemplate(template, ctx)).toBe(expected);
  });
  it('escapes inserted values, not the author\'s markup, when rendering HTML', () => {
    const html = { message: { body: `<script>alert("x")</script> & 'you'` }, data: { list: ['<b>', 'c&d'] } };
    expect(renderTemplate('<p>{{message.body}}</p>', html, { as: 'html' })).toBe(
      '<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;you&#39;</p>',
    );
    expect(renderTemplate('<ul>{{data.list}}</ul>', html, { as: 'html' })).toBe('<ul>&lt;b&gt;, c&amp;d</ul>');
    expect(renderTemplate('<p>{{message.body}}</p>', html)).toBe(`<p><script>alert("x")</script> & 'you'</p>`);
  });
});

describe('renderTemplateDeep', () => {
  it('renders every string of a JSON value and leaves the input untouched', () => {
    const body = { to: '{{ticket.customerEmail}}', meta: { tags: ['{{tag}}', 7, null, true] }, k: '{{data.n}}' };
    const copy = structuredClone(body);
    expect(renderTemplateDeep(body, ctx)).toEqual({ to: 'a@b.c', meta: { tags: ['urgent', 7, null, true] }, k: '3' });
    expect(body).toEqual(copy);
    expect(renderTemplateDeep('{{tag}}', ctx)).toBe('urgent');
  });
  it('keeps a "__proto__" key as a plain key', () => {
    const value: unknown = JSON.parse('{"__proto__":{"polluted":"{{tag}}"}}');
    const out = renderTemplateDeep(value, ctx) as Record<string, unknown>;
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('templatePaths', () => {
  it('lists trimmed placeholder paths in order', () => {
    expect(templatePaths('{{ a.b }} x {{c}} {{ }} {{ unterminated')).toEqual(['a.b', 'c', '']);
    expect(templatePaths('plain')).toEqual([]);
  });
});
