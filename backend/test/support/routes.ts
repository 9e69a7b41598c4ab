import { RequestMethod } from '@nestjs/common';
import { GUARDS_METADATA, METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer } from '@nestjs/core';
import { getMetadataStorage } from 'class-validator';
import type { Server } from 'socket.io';
import { MarketFeedService } from '../../src/modules/realtime/market-feed.service';
import { socketClients } from './sockets';
import { TestApp } from './test-app';

/** The routes Nest's controllers register, classified by their guards (authorization matrix and fuzzing). */
export type Kind = 'public' | 'user' | 'operator';
export interface Route {
  method: string;
  path: string;
  kind: Kind;
  /** The request fields the handler reads: path parameters (`:id`), the properties of its body and query DTOs, '*' when it reads the raw request or an untyped body. */
  fields?: string[];
}

/** Path parameters and the validated properties of the handler's @Body()/@Query() DTO classes. */
function handlerFields(ctrl: object, name: string, path: string): string[] {
  const fields = new Set((path.match(/:[A-Za-z_]+/g) ?? []) as string[]);
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, ctrl.constructor, name) ?? {}) as Record<string, { index: number; data?: unknown }>;
  const types = (Reflect.getMetadata('design:paramtypes', ctrl, name) ?? []) as unknown[];
  for (const [key, arg] of Object.entries(args)) {
    const kind = Number(key.split(':')[0]);
    if (kind === RouteParamtypes.PARAM && typeof arg.data === 'string') fields.add(`:${arg.data}`);
    // The raw request, or a body/query without a DTO class: fields nobody can list ('*').
    if (kind === RouteParamtypes.REQUEST) fields.add('*');
    if (kind !== RouteParamtypes.BODY && kind !== RouteParamtypes.QUERY) continue;
    const type = types[arg.index];
    if (typeof arg.data !== 'string' && (typeof type !== 'function' || type === Object)) {
      fields.add('*');
      continue;
    }
    if (typeof type !== 'function') continue;
    if (typeof arg.data === 'string') fields.add(arg.data);
    else for (const m of getMetadataStorage().getTargetValidationMetadatas(type, '', true, false)) fields.add(m.propertyName);
  }
  return [...fields];
}

function guardKind(guards: unknown[]): Kind {
  const names = guards.map((g) => (typeof g === 'function' ? g.name : (g as object)?.constructor?.name));
  if (names.includes('AdminAuthGuard')) return 'operator';
  if (names.includes('UserAuthGuard')) return 'user';
  if (names.includes('UserOrAdminGuard')) return 'user'; // a user token (the owner's) or an operator's: visitors are refused
  return 'public'; // no guard, or OptionalUserGuard (visitors pass)
}

function joinPath(...parts: string[]): string {
  return ('/' + parts.map((p) => p.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/')).replace(/\/+/g, '/');
}

/**
 * The Socket.IO events the app answers: its gateways' @SubscribeMessage handlers, and every event a
 * connected socket listens to on the server side — what a gateway binds on the socket itself (the
 * order channel, outside Nest's message pipeline) included, so no event escapes the matrix.
 */
export async function socketEvents(t: TestApp): Promise<string[]> {
  const events: string[] = [];
  for (const mod of t.app.get(ModulesContainer, { strict: false }).values()) {
    for (const wrapper of mod.providers.values()) {
      const cls = wrapper.metatype as (new (...a: unknown[]) => unknown) | undefined;
      if (typeof cls !== 'function' || !cls.prototype || !Reflect.getMetadata('websockets:is_gateway', cls)) continue;
      const proto = cls.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const handler = proto[name];
        if (typeof handler === 'function' && Reflect.getMetadata('websockets:message_mapping', handler)) events.push(String(Reflect.getMetadata('message', handler)));
      }
    }
  }
  const { connect, closeAll } = await socketClients(t);
  try {
    const client = await connect('');
    // The Socket.IO server, as the market feed holds it (every gateway shares it).
    const io = (t.app.get(MarketFeedService) as unknown as { server: Server }).server;
    const serverSide = io.of('/').sockets.get(client.id!);
    if (!serverSide) throw new Error('the connected socket is not on the server');
    for (const e of serverSide.eventNames()) if (typeof e === 'string' && !['disconnect', 'disconnecting', 'error'].includes(e)) events.push(e);
  } finally {
    closeAll();
  }
  return [...new Set(events)];
}

export function nestRoutes(t: TestApp): Route[] {
  const routes: Route[] = [];
  for (const mod of t.app.get(ModulesContainer, { strict: false }).values()) {
    for (const wrapper of mod.controllers.values()) {
      const ctrl = wrapper.metatype as (new (...a: unknown[]) => unknown) | undefined;
      if (!ctrl) continue;
      const base = [Reflect.getMetadata(PATH_METADATA, ctrl) ?? ''].flat() as string[];
      const classGuards = (Reflect.getMetadata(GUARDS_METADATA, ctrl) ?? []) as unknown[];
      const proto = ctrl.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const handler = proto[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (paths === undefined || method === undefined) continue;
        const kind = guardKind([...classGuards, ...((Reflect.getMetadata(GUARDS_METADATA, handler) ?? []) as unknown[])]);
        for (const b of base)
          for (const p of [paths].flat()) {
            const path = joinPath('api', b, p);
            routes.push({ method: RequestMethod[method], path, kind, fields: handlerFields(proto, name, path) });
          }
      }
    }
  }
  return routes;
}

