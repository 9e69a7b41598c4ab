import { RequestMethod } from '@nestjs/common';
import { GUARDS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { TestApp } from './test-app';

/** The routes Nest's controllers register, classified by their guards (authorization matrix and fuzzing). */
export type Kind = 'public' | 'user' | 'operator';
export interface Route {
  method: string;
  path: string;
  kind: Kind;
}

function guardKind(guards: unknown[]): Kind {
  const names = guards.map((g) => (typeof g === 'function' ? g.name : (g as object)?.constructor?.name));
  if (names.includes('AdminAuthGuard')) return 'operator';
  if (names.includes('UserAuthGuard')) return 'user';
  return 'public'; // no guard, or OptionalUserGuard (visitors pass)
}

function joinPath(...parts: string[]): string {
  return ('/' + parts.map((p) => p.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/')).replace(/\/+/g, '/');
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
        for (const b of base) for (const p of [paths].flat()) routes.push({ method: RequestMethod[method], path: joinPath('api', b, p), kind });
      }
    }
  }
  return routes;
}

