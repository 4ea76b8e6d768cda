/** Where the language model is; the configuration's LLM_* settings. */
export interface TextProviderSettings {
  llmUrl?: string;
  llmModel: string;
  llmApiKey?: string;
  llmTimeoutMs: number;
}

/**
 * Where text the knowledge does not hold comes from: descriptions of names nobody lists, and
 * translations into the account's language. None by default: the AI then works fully offline on
 * its knowledge. With `LLM_URL` set, a language model behind an OpenAI-compatible endpoint
 * (`POST {LLM_URL}/chat/completions`) writes them. Another provider is one object with these two methods.
 */
export interface TextProvider {
  /** Recorded as the source of what it wrote, e.g. `llm: gpt-4o-mini`. */
  readonly source: string;
  describe(item: DescribeRequest): Promise<string | undefined>;
  translate(text: string, language: string): Promise<string | undefined>;
}

export interface DescribeRequest {
  name: string;
  domain: string;
  storageType: string;
  category: string | undefined;
  companyName: string;
  language: string;
}

const MAX_TEXT = 2000;

interface ChatCompletion {
  choices?: Array<{ message?: { content?: unknown } }>;
}

export function openAiCompatibleProvider(url: string, model: string, apiKey: string | undefined, timeoutMs: number): TextProvider {
  const endpoint = `${url.replace(/\/+$/, '')}/chat/completions`;
  async function complete(instruction: string, input: string): Promise<string | undefined> {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey && { authorization: `Bearer ${apiKey}` }) },
      body: JSON.stringify({
        model,
        temperature: 0,
        messages: [
          { role: 'system', content: instruction },
          { role: 'user', content: input },
        ],
      }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) throw new Error(`LLM_URL answered ${response.status}`);
    const body = (await response.json()) as ChatCompletion;
    const content = body.choices?.[0]?.message?.content;
    const text = typeof content === 'string' ? content.trim() : '';
    return text === '' ? undefined : text.slice(0, MAX_TEXT);
  }
  return {
    source: `llm: ${model}`,
    describe: (item) =>
      complete(
        `You write the cookie declaration of a website. In one sentence of at most 30 words, in the language "${item.language}", say what the browser storage item does. Answer with the sentence only; answer "unknown" if you do not know.`,
        JSON.stringify(item),
      ).then((text) => (text && !/^unknown\.?$/i.test(text) ? text : undefined)),
    translate: (text, language) =>
      complete(`Translate the user's text into the language "${language}". Answer with the translation only.`, text),
  };
}

export function textProviderFrom(config: TextProviderSettings): TextProvider | undefined {
  return config.llmUrl ? openAiCompatibleProvider(config.llmUrl, config.llmModel, config.llmApiKey, config.llmTimeoutMs) : undefined;
}
