// The portal's form that creates a key without curl. It posts to the table
// entry `createKeyFromPortal`, which identity answers with a page that shows
// the key once. The HTML portal carries the form; the Markdown one says what
// the form sends, since a Markdown reader cannot submit it.
import { LIMITS, type OperationDef } from '@msa/contracts';
import { operationHref, requireOperation, type DocContext, type DocUrls } from './context.js';
import { renderKeyForm } from './page-kit/index.js';

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

/** The form itself, from the page kit, posting to this reader's route. */
export function keyFormHtml(ctx: DocContext, u: DocUrls, table: readonly OperationDef[]): string {
  return renderKeyForm({ action: keyFormAction(u, table), sandbox: ctx.sandbox, liveFormUrl: liveFormUrl(u) });
}
