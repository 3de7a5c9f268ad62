import { z } from 'zod';

/**
 * Building blocks of the response schemas that presenters declare beside the functions that
 * build their answers. The OpenAPI document is generated from those schemas, and
 * test/api/openapi-responses.test.ts checks real answers against the document.
 */

/** An id: a UUID (docs/contract.md, conventions). */
export const uuid = () => z.uuid();

/** A timestamp: ISO 8601 in UTC with milliseconds. */
export const timestamp = () => z.iso.datetime({ precision: 3 });
