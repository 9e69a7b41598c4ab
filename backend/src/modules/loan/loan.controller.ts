import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AdminAuth, Auth, AuthContext, UserAuth } from '../../infra/auth/guards';
import { Reply } from '../../infra/http/envelope';
import { BigIdPipe, IntIdPipe } from '../../infra/http/id-pipes';
import {
  AdminLoanListDto,
  AdminRepaymentListDto,
  LoanApplyDto,
  LoanBackListDto,
  LoanListDto,
  LoanOrderIdDto,
  LoanOrderListDto,
  LoanPoolFundDto,
  LoanProductEditDto,
  LoanRepayAddressDto,
  LoanRepayDto,
  LoanRepayProofDto,
} from './loan.dto';
import { LoanAdminService } from './loan-admin.service';
import { LoanApprovalService } from './loan-approval.service';
import { LoanRepaymentService } from './loan-repayment.service';
import { LoanService } from './loan.service';
import { ReasonDto } from '../../infra/http/reason.dto';

/** Loans (spec: borrow/*): products are public; everything else is the signed-in user's own. */
@ApiTags('loan')
@Controller('borrow')
export class LoanController {
  constructor(
    private readonly loans: LoanService,
    private readonly repayments: LoanRepaymentService,
  ) {}

  @Get('list')
  list(@Query() q: LoanListDto) {
    return this.loans.list(q);
  }

  @Post('order/apply')
  @UserAuth()
  async apply(@Auth() auth: AuthContext, @Body() dto: LoanApplyDto) {
    return new Reply(await this.loans.apply(auth.subjectId, dto), 'msg.loan_applied');
  }

  @Get('order/list')
  @UserAuth()
  orders(@Auth() auth: AuthContext, @Query() q: LoanOrderListDto) {
    return this.loans.orders(auth.subjectId, q);
  }

  /** Repay from the trade account (800 principal, 801 interest). */
  @Post('order/back')
  @UserAuth()
  async back(@Auth() auth: AuthContext, @Body() dto: LoanRepayDto) {
    return new Reply(await this.repayments.repay(auth.subjectId, dto), 'msg.loan_repaid');
  }

  /** Report an external transfer to the repayment address, with its image, for review. */
  @Post('back/apply')
  @UserAuth()
  async backApply(@Auth() auth: AuthContext, @Body() dto: LoanRepayProofDto) {
    return new Reply(await this.repayments.applyProof(auth.subjectId, dto), 'msg.loan_repay_submitted');
  }

  @Get('back/list')
  @UserAuth()
  backList(@Auth() auth: AuthContext, @Query() q: LoanBackListDto) {
    return this.loans.records(auth.subjectId, q);
  }

  @Post('back/detail')
  @UserAuth()
  backDetail(@Auth() auth: AuthContext, @Body() dto: LoanOrderIdDto) {
    return this.loans.detail(auth.subjectId, dto.order_id);
  }

  @Get('repay_in_address')
  @UserAuth()
  address(@Auth() auth: AuthContext, @Query() q: LoanRepayAddressDto) {
    return this.loans.address(auth.subjectId, q.order_id);
  }
}

/** Operators: products and the pool, applications (approve pays out once), repayment proofs. Every decision is an event with the operator and reason. */
@ApiTags('admin')
@Controller('admin/loan')
@AdminAuth()
export class LoanAdminController {
  constructor(
    private readonly admin: LoanAdminService,
    private readonly approvals: LoanApprovalService,
    private readonly repayments: LoanRepaymentService,
  ) {}

  @Get('products')
  products() {
    return this.admin.products();
  }

  @Post('products')
  async create(@Auth() auth: AuthContext, @Body() dto: LoanProductEditDto) {
    return new Reply(await this.admin.saveProduct(auth.subjectId, null, dto), 'msg.loan_saved');
  }

  @Post('products/:id')
  async edit(@Auth() auth: AuthContext, @Param('id', IntIdPipe) id: number, @Body() dto: LoanProductEditDto) {
    return new Reply(await this.admin.saveProduct(auth.subjectId, id, dto), 'msg.loan_saved');
  }

  @Get('pool')
  pool() {
    return this.admin.pool();
  }

  @Post('pool/fund')
  fund(@Auth() auth: AuthContext, @Body() dto: LoanPoolFundDto) {
    return this.admin.fund(auth.subjectId, dto);
  }

  @Get('orders')
  applications(@Query() q: AdminLoanListDto) {
    return this.admin.applications(q);
  }

  @Get('orders/:id')
  application(@Param('id', BigIdPipe) id: string) {
    return this.admin.application(id);
  }

  @Post('orders/:id/approve')
  approve(@Auth() auth: AuthContext, @Param('id', BigIdPipe) id: string, @Body() dto: ReasonDto) {
    return this.approvals.approve(auth.subjectId, id, dto.reason);
  }

  @Post('orders/:id/reject')
  reject(@Auth() auth: AuthContext, @Param('id', BigIdPipe) id: string, @Body() dto: ReasonDto) {
    return this.approvals.reject(auth.subjectId, id, dto.reason);
  }

  @Get('repayments')
  repaymentList(@Query() q: AdminRepaymentListDto) {
    return this.admin.repayments(q);
  }

  @Post('repayments/:id/approve')
  approveProof(@Auth() auth: AuthContext, @Param('id', BigIdPipe) id: string, @Body() dto: ReasonDto) {
    return this.repayments.approveProof(auth.subjectId, id, dto.reason);
  }

  @Post('repayments/:id/reject')
  rejectProof(@Auth() auth: AuthContext, @Param('id', BigIdPipe) id: string, @Body() dto: ReasonDto) {
    return this.repayments.rejectProof(auth.subjectId, id, dto.reason);
  }
}
