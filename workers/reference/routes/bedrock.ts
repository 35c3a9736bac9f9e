/**
 * Amazon Bedrock Runtime: POST /model/{modelId}/converse-stream, streamed as an AWS event stream
 * (formats/bedrock-converse.ts), Bearer or SigV4 auth (bedrock-auth.ts). Every answer carries
 * x-amzn-requestid, as AWS's do; the region is in a real endpoint's host, so nothing says it here.
 * `x-ref-exception` picks the exception the error-event fault sends (default modelStreamErrorException).
 */
import { Hono } from 'hono';
import { handleCompletion, limitsFrom } from '../handle-completion.ts';
import { awsCredentialsFrom, bedrockAuth } from '../bedrock-auth.ts';
import { BEDROCK_STREAM_EXCEPTIONS, bedrockConverseFormat, type BedrockStreamException } from '../formats/bedrock-converse.ts';
import { parseRequest, RequestError } from '../request.ts';

export const EXCEPTION_HEADER = 'x-ref-exception';

export const bedrockRoutes = new Hono<{ Bindings: Env }>();

bedrockRoutes.post('/model/:modelId/converse-stream', async (c) => {
  const exception = c.req.header(EXCEPTION_HEADER);
  const known = (BEDROCK_STREAM_EXCEPTIONS as readonly string[]).includes(exception ?? '');
  const response = await handleCompletion(
    c.req.raw,
    limitsFrom(c.env),
    bedrockConverseFormat(known ? (exception as BedrockStreamException) : undefined),
    (body) => {
      // Checked here, with the body, so that a request is authenticated before its headers are judged.
      if (exception !== undefined && !known)
        throw new RequestError(400, `unknown ${EXCEPTION_HEADER} "${exception}"; known: ${BEDROCK_STREAM_EXCEPTIONS.join(', ')}`);
      return parseRequest.bedrockConverse(body, c.req.param('modelId'));
    },
    bedrockAuth(awsCredentialsFrom(c.env)),
  );
  response.headers.set('x-amzn-requestid', crypto.randomUUID());
  return response;
});
