// One zod instance, extended once with `.openapi()`, so every schema in this
// package can carry OpenAPI metadata and the generator sees the same objects.
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

export { z };
