import { Controller, Get, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiHeader, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Auth, AuthContext, UserAuth } from '../../infra/auth/guards';
import { Reply } from '../../infra/http/envelope';
import { UploadAdmissionGuard } from './upload-admission.guard';
import { IncomingFile, UploadService } from './upload.service';
import { UserOrAdminGuard } from './user-or-admin.guard';

@ApiTags('upload')
@Controller('upload')
export class UploadController {
  constructor(private readonly uploads: UploadService) {}

  // Decorators apply bottom up: UserAuth's guard (the login check) runs first, then the admission
  // (rate limit, daily budget); both before the file is read.
  @Post('image')
  @UseGuards(UploadAdmissionGuard)
  @UserAuth()
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } }, required: ['file'] } })
  async image(@Auth() auth: AuthContext, @Req() req: Request) {
    const files = (Array.isArray(req.files) ? req.files : []) as IncomingFile[];
    return new Reply(
      await this.uploads.uploadUserImage(
        auth.subjectId,
        files.find((f) => f.fieldname === 'file'),
      ),
      'upload.success',
    );
  }

  /** The image bytes (not the envelope) for its owner or an operator; errors are envelopes. */
  @Get(':id')
  @UseGuards(UserOrAdminGuard)
  @ApiHeader({ name: 'Authorization', description: "The owner's user token or an operator token", required: true })
  async read(@Auth() auth: AuthContext, @Param('id') id: string, @Res() res: Response): Promise<void> {
    const image = await this.uploads.read(auth, id);
    res.status(200);
    res.setHeader('Content-Type', image.mime);
    res.setHeader('Cache-Control', 'private');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Disposition', 'inline');
    res.end(image.bytes);
  }
}
