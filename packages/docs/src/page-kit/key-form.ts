// The form that creates a key without curl, on the developer portal and again
// on the page that answers it when something needs another look. It works
// without JavaScript: the browser checks the fields first, identity checks
// them again with the API's schema. One HTML block without a blank line, so
// Markdown passes it through whole.
import { LIMITS, escapeHtml, type FieldProblem } from '@msa/contracts';

export interface KeyFormOptions {
  /** Where the form posts: `{base}/developers/keys`, under `/sandbox` on the sandbox. */
  action: string;
  /** On the sandbox the form makes sandbox keys only and links the production portal's form for live ones. */
  sandbox: boolean;
  /** The production portal's form, where live keys are made. */
  liveFormUrl: string;
  /** What was sent, shown again; the fields stay empty without it. */
  values?: { name: string; email: string; mode: string };
  /** A message next to each field that needs another look. */
  problems?: readonly FieldProblem[];
}

/** The portal's key form: name, e-mail and mode, each problem next to its field. */
export function renderKeyForm({ action, sandbox, liveFormUrl, values, problems = [] }: KeyFormOptions): string {
  const problemOf = (field: string) => problems.find((p) => p.field === field)?.message;
  const invalid = (field: string, id: string) => (problemOf(field) ? ` aria-invalid="true" aria-describedby="${id}-error"` : '');
  const errorLine = (field: string, id: string) => {
    const message = problemOf(field);
    return message ? `<span class="field-error" id="${id}-error">${escapeHtml(message)}</span>` : '';
  };
  const value = (text: string | undefined) => (values ? ` value="${escapeHtml(text ?? '')}"` : '');
  const checked = (mode: string) => ((values?.mode || 'sandbox') === mode ? ' checked' : '');
  const live = sandbox
    ? `<p class="form-hint">Live keys are made on the production portal: <a href="${escapeHtml(liveFormUrl)}">${escapeHtml(liveFormUrl)}</a>.</p>`
    : `<label class="choice"><input type="radio" name="mode" value="live"${checked('live')}> <strong>Live</strong>: shop requests reach the operator team</label>`;
  const nameError = errorLine('name', 'key-name');
  const emailError = errorLine('email', 'key-email');
  return [
    `<form class="key-form" method="post" action="${escapeHtml(action)}">`,
    '<p><label for="key-name">Name of your application or agent</label>',
    `<input id="key-name" name="name" type="text" required minlength="${LIMITS.keyNameMin}" maxlength="${LIMITS.keyNameMax}" autocomplete="off" placeholder="my-agent"${value(values?.name)}${invalid('name', 'key-name')}>${nameError && `\n${nameError}`}</p>`,
    '<p><label for="key-email">Your e-mail address</label>',
    `<input id="key-email" name="email" type="email" required maxlength="254" autocomplete="email" placeholder="dev@example.org"${value(values?.email)}${invalid('email', 'key-email')}>${emailError && `\n${emailError}`}</p>`,
    `<fieldset${problemOf('mode') ? ' aria-describedby="key-mode-error"' : ''}><legend>Mode</legend>`,
    `<label class="choice"><input type="radio" name="mode" value="sandbox"${checked('sandbox')}> <strong>Sandbox</strong>: shop requests are stored, never sent</label>`,
    live,
    errorLine('mode', 'key-mode'),
    '</fieldset>',
    '<p><button type="submit">Create key</button></p>',
    '</form>',
  ]
    .filter(Boolean)
    .join('\n');
}
