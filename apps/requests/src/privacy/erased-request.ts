// What erasure leaves of a stored shop request: the facts the operator needs
// that are not personal (organization name and type, shop name, products,
// colours, sizes, dates, ids, status, the quote) stay; contact name, address,
// phone, free text (notes, occasion, comments) and logo URLs go. The body
// must still parse as a ShopRequestBody, so a required text becomes a
// placeholder and an address one at `.invalid` (RFC 2606), which no mail
// server delivers to.
import type { ConfirmedSubmitter, ShopRequestBody, ShopRequestResult } from '@msa/contracts';

export const ERASED_NAME = 'erased';
export const ERASED_EMAIL = 'erased@erased.invalid';

export interface ErasableRequest {
  body: ShopRequestBody;
  result: ShopRequestResult;
  submitter?: ConfirmedSubmitter | undefined;
}

export function erasedRequest({ body, result, submitter }: ErasableRequest): ErasableRequest {
  const { phone: _phone, ...organization } = body.organization;
  const { notes: _notes, occasion: _occasion, ...rest } = body;
  const erasedBody: ShopRequestBody = {
    ...rest,
    organization: { ...organization, contact_name: ERASED_NAME, email: ERASED_EMAIL },
    ...(body.products
      ? {
          products: body.products.map(({ comment: _comment, ...product }) => ({
            ...product,
            ...(product.designs ? { designs: product.designs.map(({ comment: _c, logo_url: _l, ...design }) => design) } : {}),
          })),
        }
      : {}),
  };
  // Warnings may quote a logo URL or a contact's text back.
  const erasedResult: ShopRequestResult = { ...result, warnings: [] };
  return {
    body: erasedBody,
    result: erasedResult,
    ...(submitter ? { submitter: { ...submitter, email: ERASED_EMAIL } } : {}),
  };
}

/** The names and free text a stored request carries, for tests and checks that none is left. */
export function personalTextsOf({ body, submitter }: ErasableRequest): string[] {
  const texts = [body.organization.contact_name, body.organization.email, body.organization.phone, body.notes, body.occasion, submitter?.email];
  for (const product of body.products ?? []) {
    texts.push(product.comment);
    for (const design of product.designs ?? []) texts.push(design.comment, design.logo_url);
  }
  return texts.filter((t): t is string => typeof t === 'string' && t !== '' && t !== ERASED_NAME && t !== ERASED_EMAIL);
}
