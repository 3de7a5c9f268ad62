import { describe, expect, it } from 'vitest';
import { renderTemplate, renderTemplateDeep, templatePaths } from '../../../src/graph/index.ts';

const ctx = {
  ticket: { customerName: 'Ann', tags: ['vip', 'billing'], priority: 'high', customerEmail: 'a@b.c', assignedTo: null },
  data: { n: 3, ok: false, obj: { a: 1 }, mixed: [1, { b: 2 }] },
  tag: 'urgent',
};

describe('renderTemplate', () => {
  it('fills placeholders, with or without spaces', () => {
    expect(renderTemplate('Hi {{ticket.customerName}}!', ctx)).toBe('Hi Ann!');
    expect(renderTemplate('Hi {{  ticket.customerName  }}!', ctx)).toBe('Hi Ann!');
    expect(renderTemplate('{{tag}}/{{ticket.priority}}', ctx)).toBe('urgent/high');
  });
  it('renders numbers, booleans, scalar arrays, objects and missing values', () => {
    expect(renderTemplate('{{data.n}} {{data.ok}}', ctx)).toBe('3 false');
    expect(renderTemplate('{{ticket.tags}}', ctx)).toBe('vip, billing');
    expect(renderTemplate('{{data.obj}}', ctx)).toBe('{"a":1}');
    expect(renderTemplate('{{data.mixed}}', ctx)).toBe('[1,{"b":2}]');
    expect(renderTemplate('[{{ticket.assignedTo}}][{{data.nope}}][{{ }}]', ctx)).toBe('[][][]');
  });
  it('leaves unterminated or brace-containing placeholders literally', () => {
    expect(renderTemplate('Hi {{ ticket.customerName', ctx)).toBe('Hi {{ ticket.customerName');
    expect(renderTemplate('a {{ b {{tag}}', ctx)).toBe('a {{ b urgent');
    expect(renderTemplate('no placeholders', ctx)).toBe('no placeholders');
  });
  it('does not reach prototype properties', () => {
    expect(renderTemplate('{{ticket.constructor}}{{data.__proto__}}', ctx)).toBe('');
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
