import { Body, Controller, Get, Post, Query, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AdminAuth, Auth, AuthContext, UserAuth } from '../../infra/auth/guards';
import { okEnvelope } from '../../infra/http/envelope.interceptor';
import { Reply } from '../../infra/http/envelope';
import { PageQueryDto } from '../../infra/http/page.dto';
import { RequestLang } from '../../infra/http/request-context';
import type { Lang } from '../../infra/i18n/catalogue';
import { ProofBuildDto, ProofMineDto } from './proof.dto';
import { ProofService } from './proof.service';

/** Proof of liabilities: the published roots (public) and each user's inclusion proof (docs/integrity.md). */
@ApiTags('proof')
@Controller('proof')
export class ProofController {
  constructor(private readonly proofs: ProofService) {}

  /** Every published root, the latest first. */
  @Get('roots')
  roots(@Query() q: PageQueryDto) {
    return this.proofs.roots(q.page, q.limit);
  }

  /** The user's proof for the latest root that contains them; `download=1`: the same JSON as a file. */
  @Get('mine')
  @UserAuth()
  async mine(@Auth() auth: AuthContext, @Query() q: ProofMineDto, @RequestLang() lang: Lang, @Res() res: Response): Promise<void> {
    const proof = await this.proofs.mine(auth.subjectId);
    res.status(200);
    res.setHeader('Cache-Control', 'private, no-store');
    if (q.download === '1') {
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="kestrel-proof-${proof.root.slice(0, 16)}.json"`);
      res.end(JSON.stringify(proof, null, 2) + '\n');
      return;
    }
    res.json(okEnvelope(lang, proof));
  }
}

/** Operators: publish a root now (besides start-up and the daily 00:00 UTC job). */
@ApiTags('admin')
@Controller('admin/proof')
@AdminAuth()
export class ProofAdminController {
  constructor(private readonly proofs: ProofService) {}

  @Post('build')
  async build(@Auth() auth: AuthContext, @Body() dto: ProofBuildDto) {
    return new Reply(await this.proofs.build('operator', `admin:${auth.subjectId}`, dto.reason), 'msg.proof_built');
  }
}
