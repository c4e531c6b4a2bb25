// The portal's form that creates a key without curl. It posts to the table
// entry `createKeyFromPortal`, which identity answers with a page that shows
// the key once. The HTML portal carries the form; the Markdown one says what
// the form sends, since a Markdown reader cannot submit it.
import { LIMITS, type OperationDef } from '@msa/contracts';
import { operationHref, requireOperation, type DocContext, type DocUrls } from './context.js';
import { escapeHtml } from './html.js';

/** Where the form posts, for this reader: `{base}/developers/keys`, under `/sandbox` on the sandbox. */
export function keyFormAction(u: DocUrls, table: readonly OperationDef[]): string {
  return operationHref(u, requireOperation(table, 'createKeyFromPortal'));
}

/** The production portal's form, where live keys are made. */
const liveFormUrl = (u: DocUrls) => `${u.production}/developers#create-a-key`;

/** What the form sends, for readers of the Markdown portal. */
export function keyFormMarkdown(ctx: DocContext, u: DocUrls, table: readonly OperationDef[]): string {
  const mode = ctx.sandbox
    ? `\`mode\` (\`sandbox\`; live keys come from the form of the production portal, ${liveFormUrl(u)})`
    : '`mode` (`sandbox` or `live`)';
  return (
    `In a browser this page shows a form. It posts \`name\` (${LIMITS.keyNameMin}–${LIMITS.keyNameMax} characters), \`email\` and ${mode} ` +
    `as \`application/x-www-form-urlencoded\` to \`POST ${keyFormAction(u, table)}\`.`
  );
}

/**
 * The form itself, as one HTML block (no blank line inside, so Markdown
 * passes it through whole). It works without JavaScript; the browser checks
 * the fields first, identity checks them again with the API's schema.
 */
export function keyFormHtml(ctx: DocContext, u: DocUrls, table: readonly OperationDef[]): string {
  const live = ctx.sandbox
    ? `<p class="form-hint">Live keys are made on the production portal: <a href="${escapeHtml(liveFormUrl(u))}">${escapeHtml(liveFormUrl(u))}</a>.</p>`
    : '<label class="choice"><input type="radio" name="mode" value="live"> <strong>Live</strong>: shop requests reach the operator team</label>';
  return [
    `<form class="key-form" method="post" action="${escapeHtml(keyFormAction(u, table))}">`,
    '<p><label for="key-name">Name of your application or agent</label>',
    `<input id="key-name" name="name" type="text" required minlength="${LIMITS.keyNameMin}" maxlength="${LIMITS.keyNameMax}" autocomplete="off" placeholder="my-agent"></p>`,
    '<p><label for="key-email">Your e-mail address</label>',
    '<input id="key-email" name="email" type="email" required maxlength="254" autocomplete="email" placeholder="dev@example.org"></p>',
    '<fieldset><legend>Mode</legend>',
    '<label class="choice"><input type="radio" name="mode" value="sandbox" checked> <strong>Sandbox</strong>: shop requests are stored, never sent</label>',
    live,
    '</fieldset>',
    '<p><button type="submit">Create key</button></p>',
    '</form>',
  ].join('\n');
}
