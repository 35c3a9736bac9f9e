/**
 * Azure OpenAI chat completions, in both of Azure's URL forms:
 *   POST /openai/deployments/{deployment}/chat/completions?api-version=…  (the deployment is the model)
 *   POST /openai/v1/chat/completions                                      (the model in the body; no api-version)
 * streamed with Azure's content filter chunks (formats/azure-openai.ts). The key is the reference's
 * token, in `api-key` or `Authorization: Bearer`. Answers carry Azure's headers: x-ms-region (the
 * configured REFERENCE_AZURE_REGION), apim-request-id, x-request-id and azureml-model-session.
 */
import { Hono } from 'hono';
import { AZURE_KEY_PLACES, keyAuth } from '../auth.ts';
import { handleCompletion, limitsFrom } from '../handle-completion.ts';
import { azureOpenaiFormat } from '../formats/azure-openai.ts';
import { errorResponse, parseRequest } from '../request.ts';

/** The region x-ms-region names when REFERENCE_AZURE_REGION is empty. */
export const DEFAULT_AZURE_REGION = 'Sweden Central';
/** This isolate's model session, named in azureml-model-session (made on first use: no randomness at startup in workerd). */
let modelSession: string | undefined;

const azureKeyAuth = keyAuth(
  AZURE_KEY_PLACES,
  401,
  'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
);

function withAzureHeaders(response: Response, env: Env): Response {
  response.headers.set('x-ms-region', env.REFERENCE_AZURE_REGION || DEFAULT_AZURE_REGION);
  response.headers.set('apim-request-id', crypto.randomUUID());
  response.headers.set('x-request-id', crypto.randomUUID());
  response.headers.set('azureml-model-session', (modelSession ??= `reference-${crypto.randomUUID().slice(0, 8)}`));
  return response;
}

export const azureRoutes = new Hono<{ Bindings: Env }>();

azureRoutes.post('/openai/deployments/:deployment/chat/completions', async (c) => {
  // Azure answers a deployment URL without api-version with 404 {"error":{"code":"404","message":"Resource
  // not found"}}, not a 400 (reported to Microsoft in MicrosoftDocs/azure-docs#114602): the version is part
  // of the route. So does the reference, before looking at the key.
  if (!c.req.query('api-version')) return withAzureHeaders(errorResponse(azureOpenaiFormat, 404, 'Resource not found'), c.env);
  const deployment = c.req.param('deployment');
  const response = await handleCompletion(
    c.req.raw,
    limitsFrom(c.env),
    azureOpenaiFormat,
    (body) => parseRequest.openaiChat({ ...body, model: deployment }),
    azureKeyAuth,
  );
  return withAzureHeaders(response, c.env);
});

azureRoutes.post('/openai/v1/chat/completions', async (c) =>
  withAzureHeaders(await handleCompletion(c.req.raw, limitsFrom(c.env), azureOpenaiFormat, parseRequest.openaiChat, azureKeyAuth), c.env),
);
