// /services/groups: named sets of services a post is sent to. Reading needs get_services,
// changing needs manage_groups (docs/api.md "Permissions").
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { callerId } from '../http/caller.ts';
import { problems } from '../http/schemas.ts';
import { strictBody } from '../http/strict-body.ts';
import { addGroupMember, createGroup, deleteGroup, getGroup, listGroups, removeGroupMember } from './services.logic.ts';
import { IdParams, MemberParams, NewGroupBody } from './services.schemas.ts';

const tags = ['services'];

export async function groupsRoutes(fastify: FastifyInstance, { db }: { db: Db }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/services/groups',
    {
      config: { permission: 'get_services' },
      schema: {
        summary: 'Your service groups',
        tags,
        response: { 200: Type.Array(Type.Ref('ServiceGroup')), ...problems(401) },
      },
    },
    async (request) => listGroups(db, callerId(request)),
  );

  app.post(
    '/services/groups',
    {
      config: { permission: 'manage_groups' },
      schema: {
        summary: 'Create a service group',
        description: 'Optionally with its first members; each must be one of your services (else 400).',
        tags,
        body: NewGroupBody,
        response: { 201: Type.Ref('ServiceGroup'), ...problems(400, 401) },
      },
      validatorCompiler: strictBody,
    },
    async (request, reply) => {
      const group = await createGroup(db, callerId(request), request.body);
      return reply.code(201).header('location', `/services/groups/${group.id}`).send(group);
    },
  );

  app.get(
    '/services/groups/:id',
    {
      config: { permission: 'get_services' },
      schema: {
        summary: 'One service group',
        tags,
        params: IdParams,
        response: { 200: Type.Ref('ServiceGroup'), ...problems(400, 401, 404) },
      },
    },
    async (request) => getGroup(db, callerId(request), request.params.id),
  );

  app.delete(
    '/services/groups/:id',
    {
      config: { permission: 'manage_groups' },
      schema: {
        summary: 'Delete a service group',
        description: 'The services stay; deliveries already queued through the group go on.',
        tags,
        params: IdParams,
        response: { 204: Type.Null(), ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await deleteGroup(db, callerId(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/services/groups/:id/:service_id',
    {
      config: { permission: 'manage_groups' },
      schema: {
        summary: 'Add a service to a group',
        description: "Adding a member twice is harmless. Another person's group or service is 404.",
        tags,
        params: MemberParams,
        response: { 200: Type.Ref('ServiceGroup'), ...problems(400, 401, 404) },
      },
    },
    async (request) => addGroupMember(db, callerId(request), request.params.id, request.params.service_id),
  );

  app.delete(
    '/services/groups/:id/:service_id',
    {
      config: { permission: 'manage_groups' },
      schema: {
        summary: 'Remove a service from a group',
        description: "Removing a service that is not a member is harmless. Another person's group or service is 404.",
        tags,
        params: MemberParams,
        response: { 204: Type.Null(), ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await removeGroupMember(db, callerId(request), request.params.id, request.params.service_id);
      return reply.code(204).send(null);
    },
  );
}
