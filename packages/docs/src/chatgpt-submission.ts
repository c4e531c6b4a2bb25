// The import file of the ChatGPT app submission (`chatgpt-app-submission.json`
// at the repository root, uploaded in OpenAI's submission form): app info,
// every MCP tool with the hints the mcp service announces and one sentence
// per hint saying why, and the test prompts reviewers run. The tools and
// their hints come from the contracts table, so a new tool or a changed hint
// changes the file; `pnpm submission` writes it and a test keeps it current.
import { LIMITS, MCP_TOOLS, SERVICE_FACTS, type McpToolName, type ToolHints } from '@msa/contracts';

export const CHATGPT_SUBMISSION_SCHEMA = 'https://developers.openai.com/apps-sdk/schemas/chatgpt-app-submission.v1.json';

export interface SubmissionTool {
  annotations: Pick<ToolHints, 'readOnlyHint' | 'openWorldHint' | 'destructiveHint'>;
  justifications: { read_only_justification: string; open_world_justification: string; destructive_justification: string };
}

export interface SubmissionTestCase {
  description: string;
  user_prompt: string;
  file_attachment_urls: null;
  /** The tool a prompt triggers; `null` for a prompt that should trigger none. */
  tools_triggered: McpToolName | null;
  expected_output: string;
  expected_output_url: null;
}

export interface ChatGptSubmission {
  $schema: typeof CHATGPT_SUBMISSION_SCHEMA;
  schema_version: 1;
  app_info: { display_name: string; subtitle: string; description: string; category: 'BUSINESS' };
  tools: Record<string, SubmissionTool>;
  test_cases: SubmissionTestCase[];
  negative_test_cases: SubmissionTestCase[];
}

/** What each tool reads or does, in the words a reviewer checks against the tool; one entry per tool of the table. */
const WHAT: Record<McpToolName, string> = {
  search_products: 'Searches the catalog of printable base products and returns matching products with their from-prices',
  get_product: 'Returns one catalog product with its colours, sizes, decoration options and volume prices',
  get_pricing: 'Returns the pricing overview: free setup, no minimum order quantity and every product\'s from-price',
  list_public_shops: 'Lists the public merch shops the operator already runs, optionally by category',
  get_shop_request: 'Returns a shop request the same credentials created earlier, with its status',
  get_quote: `Computes exact prices for the products and quantities given and keeps the quote for ${LIMITS.quoteLifetimeDays} days so a shop request can name it`,
  create_shop_request: 'Stores a request for a new merch shop for the organization the person names',
};

function justify(name: McpToolName, hints: ToolHints): SubmissionTool['justifications'] {
  return {
    read_only_justification: hints.readOnlyHint
      ? `${WHAT[name]}; it creates, changes or deletes nothing another user sees.`
      : `${WHAT[name]}, a new record in this service; on the live endpoint the operator team receives it by e-mail and answers the contact within ${SERVICE_FACTS.replyWithinHours} hours.`,
    open_world_justification: hints.openWorldHint
      ? 'A live request e-mails the operator team and sends a confirmation to the contact address given in the request; on the sandbox (the reviewer account) it is stored and never sent.'
      : 'Reads only this service\'s own catalog, shops and requests; it writes to no third-party system and publishes nothing.',
    destructive_justification: hints.destructiveHint
      ? 'It adds a request and never changes or deletes an existing one, but the e-mails a live request sends cannot be taken back, so hosts should confirm the details with the person first.'
      : 'It deletes, overwrites or revokes nothing.',
  };
}

function testCase(description: string, userPrompt: string, tool: McpToolName | null, expected: string): SubmissionTestCase {
  return { description, user_prompt: userPrompt, file_attachment_urls: null, tools_triggered: tool, expected_output: expected, expected_output_url: null };
}

export function buildChatGptSubmission(): ChatGptSubmission {
  return {
    $schema: CHATGPT_SUBMISSION_SCHEMA,
    schema_version: 1,
    app_info: {
      display_name: 'Merch-Shop',
      subtitle: 'Free merch shops for groups',
      description:
        'Merch-Shop helps schools, clubs, companies, craft businesses and restaurants in Germany and Austria get a free, branded online merch shop: ' +
        'browse printable base products (T-shirts, hoodies, polos, caps, bags, aprons) with their prices, get exact quotes for quantities, look at existing public shops, ' +
        `and submit a shop request that the operator team answers within ${SERVICE_FACTS.replyWithinHours} hours. Setting up a shop is free, there is no minimum order quantity, and every member orders and pays individually.`,
      category: 'BUSINESS',
    },
    tools: Object.fromEntries(
      MCP_TOOLS.map((tool) => [
        tool.name,
        {
          annotations: { readOnlyHint: tool.hints.readOnlyHint, openWorldHint: tool.hints.openWorldHint, destructiveHint: tool.hints.destructiveHint },
          justifications: justify(tool.name, tool.hints),
        },
      ]),
    ),
    test_cases: [
      testCase(
        'Find printable products for a club.',
        'Find organic hoodies we could print our football club\'s logo on.',
        'search_products',
        'Lists matching hoodies from the catalog with their from-prices in EUR including VAT, without inventing products.',
      ),
      testCase(
        'Show one product in detail.',
        'Which colours and sizes does the bio-t-shirt-unisex come in, and what does it cost from 50 pieces?',
        'get_product',
        'Shows the product\'s colours, sizes, decoration options and the volume price that applies from 50 pieces.',
      ),
      testCase(
        'Price a quantity exactly.',
        'What would 40 bio-t-shirt-unisex with our logo cost for our sports club (verein)?',
        'get_quote',
        'Returns a quote with the unit and total price in EUR including 19 % VAT and a quote id, rather than a price the model computed.',
      ),
      testCase(
        'Look at existing shops for inspiration.',
        'Show me merch shops of other sports clubs.',
        'list_public_shops',
        'Lists the public merch shops of the category verein (clubs) with their names and links.',
      ),
      testCase(
        'Request a shop after the person confirmed the details (signed in with the sandbox, no e-mail needed).',
        'Please request a merch shop "TSV Musterstadt Fanshop" for our club TSV Musterstadt (verein) with the bio-t-shirt-unisex; the contact is Erika Mustermann, erika@example.org. Yes, these details are right, send it.',
        'create_shop_request',
        'Creates the shop request and returns its id and status "received"; on the sandbox account it is stored and marked as never sent.',
      ),
    ],
    negative_test_cases: [
      testCase(
        'Buying from another shop is out of scope.',
        'Order 50 plain white T-shirts for me on Amazon.',
        null,
        'The app is not used: it sets up branded merch shops and does not buy from other shops or sell blank garments.',
      ),
      testCase('Design work is out of scope.', 'Design a new logo for my bakery.', null, 'The app is not used: it does not create logos or artwork.'),
      testCase(
        'Parcel tracking is out of scope.',
        'Where is the parcel from my online order last week?',
        null,
        'The app is not used: it does not track deliveries or orders of other shops.',
      ),
    ],
  };
}
