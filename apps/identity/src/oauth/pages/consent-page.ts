// The consent page: a plain HTML page for a person, without JavaScript, in
// German and English. Its forms are what browsers, password managers and
// assistive technology understand: `email`, `code` (one-time-code) and `mode`
// fields with labels, and a `decision` submit button. The first step has a
// second form, for the sandbox without an e-mail address: `mode=sandbox` and
// `decision=approve`, no address and no code (the way in for reviewers).
//
// The client's name is whatever the client declared, so the page marks it as
// such unless the operator verified the client, and names where the approval
// goes (the redirect's host, or the app on the person's device): a client
// called "Claude" whose codes land on evil.example says so here.
import { LIMITS, SERVICE_FACTS, type ApprovalTarget, type ConsentLanguage, type Scope } from '@msa/contracts';
import { PRODUCT_NAME, escapeHtml, renderPageShell } from '@msa/docs/page-kit';

export type Lang = ConsentLanguage;

const TEXT = {
  de: {
    htmlLang: 'de',
    title: 'Zugriff erlauben',
    switchTo: 'English',
    asks: (client: string) => `${client} möchte in Ihrem Namen die ${PRODUCT_NAME} nutzen.`,
    selfDeclared: 'selbst angegeben, nicht geprüft',
    goesTo: 'Die Freigabe geht an:',
    target: (t: ApprovalTarget) =>
      t.kind === 'host' ? t.value : t.kind === 'device' ? `eine Anwendung auf Ihrem eigenen Gerät (${t.value})` : `die App, die Links mit „${t.value}:“ öffnet`,
    from: 'Anwendung von',
    wants: 'Erbeten wird:',
    scopes: {
      'catalog:read': 'Produkte, Farben, Größen und Preise lesen',
      'shops:read': 'die öffentlichen Merch-Shops lesen',
      'requests:write': 'Shop-Anfragen für Ihre Organisation stellen',
      'requests:read': 'den Stand Ihrer Shop-Anfragen lesen',
    } satisfies Record<Scope, string>,
    emailStep: 'Bestätigen Sie zuerst Ihre E-Mail-Adresse. Wir senden Ihnen einen 6\u2011stelligen Code.',
    email: 'E-Mail-Adresse',
    emailPrivacy: (href: string) =>
      `Wir nutzen die Adresse für den Code und um Ihnen Ihre Shop-Anfragen zuzuordnen. <a href="${href}">Datenschutzerklärung</a>: was wir speichern, wie lange, und wie Sie es einsehen oder löschen.`,
    sendCode: 'Code senden',
    codeSent: (minutes: number) =>
      `Wenn diese Adresse E-Mails empfangen kann, ist ein 6\u2011stelliger Code unterwegs. Er gilt ${minutes} Minuten.`,
    code: 'Code aus der E-Mail',
    mode: 'Modus',
    live: 'Live',
    liveHint: `Echte Shop-Anfragen: Unser Team erhält sie per E-Mail und meldet sich innerhalb von ${SERVICE_FACTS.replyWithinHours} Stunden.`,
    sandbox: 'Sandbox',
    sandboxHint: 'Zum Ausprobieren: Anfragen werden gespeichert, aber nie versendet.',
    sandboxOnly: 'Diese Anmeldung läuft über die Sandbox: Anfragen werden gespeichert, aber nie versendet.',
    approve: 'Erlauben',
    deny: 'Ablehnen',
    otherAddress: 'Andere Adresse oder neuen Code',
    wrongCode: (left: number) => `Der Code stimmt nicht. Noch ${left} ${left === 1 ? 'Versuch' : 'Versuche'}.`,
    codeExpired: 'Der Code ist abgelaufen oder wurde zu oft falsch eingegeben. Fordern Sie einen neuen an.',
    invalidEmail: 'Bitte geben Sie eine gültige E-Mail-Adresse ein.',
    chooseMode: 'Bitte wählen Sie Live oder Sandbox.',
    confirmFirst: 'Für Live-Anfragen bestätigen Sie bitte zuerst Ihre E-Mail-Adresse mit dem Code, den wir Ihnen senden.',
    anonymousSandbox: 'Nur ausprobieren? Die Sandbox geht auch ohne E-Mail-Adresse: Anfragen werden gespeichert, aber nie versendet, und niemand erhält eine E-Mail.',
    anonymousSandboxButton: 'Sandbox ohne E-Mail ausprobieren',
    footer: 'Sie können diesen Zugriff jederzeit in Ihrer Anwendung widerrufen. Ohne Ihre Zustimmung erhält die Anwendung nichts.',
    errorTitle: 'Das hat nicht geklappt',
    tooMany: {
      codes: 'Zu viele Codes in kurzer Zeit. Bitte warten Sie etwas und versuchen Sie es dann erneut.',
      codes_today: 'Für diese Adresse wurden heute schon zu viele Codes angefordert.',
      locked: 'Für diese Adresse wurde heute zu oft ein falscher Code eingegeben. Zu Ihrem Schutz ist die Bestätigung bis zum Ende des Tages (UTC) gesperrt.',
      people: 'Von Ihrer Internetadresse aus haben sich heute schon zu viele verschiedene Personen angemeldet.',
    },
    retryAfter: (minutes: number) =>
      minutes <= 90
        ? `Versuchen Sie es in etwa ${minutes} ${minutes === 1 ? 'Minute' : 'Minuten'} wieder.`
        : `Versuchen Sie es in etwa ${Math.round(minutes / 60)} Stunden wieder.`,
    back: 'Zurück zur Anwendung und neu beginnen.',
    problems: {
      unknown_client: 'Diese Anwendung ist uns nicht bekannt (client_id).',
      client_metadata: 'Die Beschreibung der Anwendung (Client ID Metadata Document) ist nicht verwendbar.',
      redirect_uri: 'Die Rücksprungadresse (redirect_uri) ist für diese Anwendung nicht registriert.',
      expired: 'Diese Seite ist abgelaufen oder wurde schon verwendet.',
      csrf: 'Das Formular konnte nicht bestätigt werden. Cookies müssen für diese Seite erlaubt sein.',
      invalid_request: 'Die Anwendung hat eine ungültige Anfrage gestellt. Wir leiten Sie nicht zu ihr zurück, weil sie nicht von uns geprüft ist.',
      busy: 'Gerade werden zu viele Anwendungsbeschreibungen abgerufen. Bitte versuchen Sie es gleich noch einmal.',
    },
  },
  en: {
    htmlLang: 'en',
    title: 'Allow access',
    switchTo: 'Deutsch',
    asks: (client: string) => `${client} wants to use the ${PRODUCT_NAME} on your behalf.`,
    selfDeclared: 'self-declared, not verified',
    goesTo: 'The approval goes to:',
    target: (t: ApprovalTarget) => (t.kind === 'host' ? t.value : t.kind === 'device' ? `an app on your own device (${t.value})` : `the app that opens “${t.value}:” links`),
    from: 'App published by',
    wants: 'It asks to:',
    scopes: {
      'catalog:read': 'read products, colours, sizes and prices',
      'shops:read': 'read the public merch shops',
      'requests:write': 'submit shop requests for your organization',
      'requests:read': 'read the status of your shop requests',
    } satisfies Record<Scope, string>,
    emailStep: 'First confirm your e-mail address. We will send you a 6\u2011digit code.',
    email: 'E-mail address',
    emailPrivacy: (href: string) =>
      `We use the address for the code and to link your shop requests to you. <a href="${href}">Privacy notice</a>: what we store, for how long, and how to see or erase it.`,
    sendCode: 'Send code',
    codeSent: (minutes: number) => `If this address can receive e-mail, a 6\u2011digit code is on its way. It is valid for ${minutes} minutes.`,
    code: 'Code from the e-mail',
    mode: 'Mode',
    live: 'Live',
    liveHint: `Real shop requests: our team receives them by e-mail and answers within ${SERVICE_FACTS.replyWithinHours} hours.`,
    sandbox: 'Sandbox',
    sandboxHint: 'For trying things out: requests are stored, never sent.',
    sandboxOnly: 'This sign-in is on the sandbox: requests are stored, never sent.',
    approve: 'Allow',
    deny: 'Deny',
    otherAddress: 'Another address or a new code',
    wrongCode: (left: number) => `The code is not right. ${left} ${left === 1 ? 'try' : 'tries'} left.`,
    codeExpired: 'The code has expired or was entered wrongly too often. Ask for a new one.',
    invalidEmail: 'Please enter a valid e-mail address.',
    chooseMode: 'Please choose live or sandbox.',
    confirmFirst: 'For live requests, first confirm your e-mail address with the code we send you.',
    anonymousSandbox: 'Just trying it out? The sandbox works without an e-mail address: requests are stored, never sent, and nobody gets an e-mail.',
    anonymousSandboxButton: 'Try the sandbox without e-mail',
    footer: 'You can revoke this access in your app at any time. Without your approval the app gets nothing.',
    errorTitle: 'That did not work',
    tooMany: {
      codes: 'Too many codes in a short time. Please wait a little and try again.',
      codes_today: 'Too many codes were asked for this address today.',
      locked: 'A wrong code was entered for this address too often today. To protect it, confirming it is locked until the end of the day (UTC).',
      people: 'Too many different people have signed in from your internet address today.',
    },
    retryAfter: (minutes: number) =>
      minutes <= 90 ? `Try again in about ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.` : `Try again in about ${Math.round(minutes / 60)} hours.`,
    back: 'Go back to your app and start again.',
    problems: {
      unknown_client: 'This app is not known here (client_id).',
      client_metadata: 'The description of the app (Client ID Metadata Document) cannot be used.',
      redirect_uri: 'The return address (redirect_uri) is not registered for this app.',
      expired: 'This page has expired or was already used.',
      csrf: 'The form could not be verified. Cookies must be allowed for this page.',
      invalid_request: 'The app sent a request that is not valid. We do not send you back to it, because it is not verified by us.',
      busy: 'Too many app descriptions are being fetched right now. Please try again in a moment.',
    },
  },
} as const;

/** Longer client names are cut: the page names the client, it does not carry its prose. */
const CLIENT_NAME_MAX = 80;

/**
 * A name the client declared, as one line of text: control characters and
 * direction overrides (which could show `elpmaxe.live` as `evil.example`)
 * become spaces, and it is cut short. Escaped where it is written.
 */
export function displayName(value: string): string {
  const text = value
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length <= CLIENT_NAME_MAX ? text : `${text.slice(0, CLIENT_NAME_MAX - 1).trimEnd()}…`;
}


/** The consent page's own rules, after the kit's palette. */
const CSS = `
main { max-width: 34rem; margin: 0 auto; padding: 2rem 1rem 3rem; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 1.25rem; }
.card + p { margin-top: 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
p { margin: 0 0 1rem; overflow-wrap: anywhere; }
ul { margin: 0 0 1rem; padding-left: 1.25rem; }
.muted { color: var(--muted); font-size: 0.9rem; }
.lang { text-align: right; margin: 0 0 0.5rem; font-size: 0.9rem; }
label { display: block; font-weight: 600; margin: 0 0 0.3rem; }
input[type=email], input[type=text] { width: 100%; font: inherit; padding: 0.6rem 0.7rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
input[name=code] { letter-spacing: 0.3em; font-variant-numeric: tabular-nums; }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 1rem 0; padding: 0.5rem 0.9rem 0.8rem; }
legend { font-weight: 600; padding: 0 0.3rem; }
.choice { display: flex; gap: 0.6rem; align-items: flex-start; margin-top: 0.5rem; }
.choice input { margin-top: 0.35rem; }
.choice label { margin: 0; }
.choice span { display: block; font-weight: 400; color: var(--muted); font-size: 0.9rem; }
.actions { display: flex; flex-wrap: wrap; gap: 0.75rem; margin-top: 1.25rem; }
button { font: inherit; padding: 0.6rem 1.2rem; border-radius: 6px; border: 1px solid var(--line); background: var(--bg); color: var(--fg); cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
.field { margin-top: 1rem; }
.error { color: var(--bad); font-weight: 600; }
.link { background: none; border: 0; padding: 0; color: var(--accent); text-decoration: underline; font-size: 0.9rem; }
`;

function layout(lang: Lang, title: string, body: string, switchHref?: string): string {
  const t = TEXT[lang];
  const switcher = switchHref ? `<p class="lang"><a href="${escapeHtml(switchHref)}" hreflang="${lang === 'de' ? 'en' : 'de'}">${t.switchTo}</a></p>` : '';
  return renderPageShell({
    lang: t.htmlLang,
    title,
    productInTitle: true,
    noindex: true,
    styles: CSS,
    body: `<main>\n${switcher}<h1>${escapeHtml(title)}</h1>\n${body}\n</main>`,
  });
}

export interface ConsentView {
  lang: Lang;
  /** The form's target and the language switch's link. */
  action: string;
  /** The privacy notice of the page's environment, in its language, linked beside the e-mail field. */
  privacyHref: string;
  switchHref: string;
  csrf: string;
  clientName: string;
  clientHost?: string | undefined;
  /** The client's name is only what it declared (it registered itself, or hosts its own document). */
  selfDeclared: boolean;
  approvalTarget: ApprovalTarget;
  scopes: Scope[];
  sandboxOnly: boolean;
  step: 'email' | 'code';
  email?: string | undefined;
  /** A problem with what was just sent. */
  error?: 'wrong_code' | 'code_expired' | 'invalid_email' | 'choose_mode' | 'confirm_first' | undefined;
  attemptsLeft?: number;
}

function errorLine(view: ConsentView): string {
  const t = TEXT[view.lang];
  const message =
    view.error === 'wrong_code'
      ? t.wrongCode(view.attemptsLeft ?? 0)
      : view.error === 'code_expired'
        ? t.codeExpired
        : view.error === 'invalid_email'
          ? t.invalidEmail
          : view.error === 'choose_mode'
            ? t.chooseMode
            : view.error === 'confirm_first'
              ? t.confirmFirst
              : '';
  return message ? `<p class="error" role="alert" id="form-error">${escapeHtml(message)}</p>` : '';
}

export function renderConsentPage(view: ConsentView): string {
  const t = TEXT[view.lang];
  const declared = view.selfDeclared ? ` <span class="muted">(${t.selfDeclared})</span>` : '';
  const who =
    `<p>${t.asks(`<strong>${escapeHtml(displayName(view.clientName) || '–')}</strong>${declared}`)}</p>` +
    (view.clientHost ? `<p class="muted">${t.from} <strong>${escapeHtml(view.clientHost)}</strong></p>` : '') +
    `<p>${t.goesTo} <strong>${escapeHtml(t.target(view.approvalTarget))}</strong></p>`;
  const what = `<p>${t.wants}</p><ul>${view.scopes.map((s) => `<li>${escapeHtml(t.scopes[s])}</li>`).join('')}</ul>`;
  const hidden = `<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}"><input type="hidden" name="lang" value="${view.lang}">`;
  const describedBy = view.error ? ' aria-describedby="form-error" aria-invalid="true"' : '';
  let form: string;
  if (view.step === 'email') {
    form = `<form method="post" action="${escapeHtml(view.action)}">
${hidden}
<p>${t.emailStep}</p>
${errorLine(view)}
<label for="email">${t.email}</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${escapeHtml(view.email ?? '')}"${describedBy}>
<p class="muted">${t.emailPrivacy(escapeHtml(view.privacyHref))}</p>
<div class="actions">
<button class="primary" type="submit" name="decision" value="send_code">${t.sendCode}</button>
<button type="submit" name="decision" value="deny" formnovalidate>${t.deny}</button>
</div>
</form>
<form method="post" action="${escapeHtml(view.action)}" class="field">
${hidden}
<input type="hidden" name="mode" value="sandbox">
<p class="muted">${t.anonymousSandbox}</p>
<button type="submit" name="decision" value="approve">${t.anonymousSandboxButton}</button>
</form>`;
  } else {
    const modes = view.sandboxOnly
      ? `<p class="muted">${t.sandboxOnly}</p><input type="hidden" name="mode" value="sandbox">`
      : `<fieldset>
<legend>${t.mode}</legend>
<div class="choice"><input type="radio" id="mode-live" name="mode" value="live" required><label for="mode-live">${t.live}<span>${t.liveHint}</span></label></div>
<div class="choice"><input type="radio" id="mode-sandbox" name="mode" value="sandbox"><label for="mode-sandbox">${t.sandbox}<span>${t.sandboxHint}</span></label></div>
</fieldset>`;
    form = `<form method="post" action="${escapeHtml(view.action)}">
${hidden}
<p>${escapeHtml(t.codeSent(LIMITS.consentCodeLifetimeSeconds / 60))}</p>
<p class="muted">${escapeHtml(view.email ?? '')}</p>
${errorLine(view)}
<label for="code">${t.code}</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required${describedBy}>
${modes}
<div class="actions">
<button class="primary" type="submit" name="decision" value="approve">${t.approve}</button>
<button type="submit" name="decision" value="deny" formnovalidate>${t.deny}</button>
</div>
<p class="field"><button class="link" type="submit" name="decision" value="restart" formnovalidate>${t.otherAddress}</button></p>
</form>`;
  }
  return layout(view.lang, t.title, `<div class="card">${who}${what}${form}</div><p class="muted">${t.footer}</p>`, view.switchHref);
}

export type PageProblem = keyof (typeof TEXT)['en']['problems'];

/** A page that ends the flow: an unknown client, a redirect URI that is not registered, an expired page. `detail` is the technical reason, in English. */
export function renderErrorPage(lang: Lang, problem: PageProblem, detail?: string): string {
  const t = TEXT[lang];
  const technical = detail ? `<p class="muted">${escapeHtml(detail)}</p>` : '';
  return layout(lang, t.errorTitle, `<div class="card"><p class="error">${escapeHtml(t.problems[problem])}</p>${technical}<p>${t.back}</p></div>`);
}

/**
 * Why no code is sent or taken: too many codes this hour (`codes`) or today
 * (`codes_today`) for the address, its confirmation locked after wrong codes
 * (`locked`), or too many new people from the caller's address today (`people`).
 */
export type TooMany = keyof (typeof TEXT)['en']['tooMany'];

export function renderTooManyPage(lang: Lang, reason: TooMany, retryAfterSeconds: number, switchHref?: string): string {
  const t = TEXT[lang];
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return layout(lang, t.errorTitle, `<div class="card"><p class="error">${t.tooMany[reason]}</p><p>${t.retryAfter(minutes)}</p></div>`, switchHref);
}
