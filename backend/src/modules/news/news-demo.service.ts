import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { PNG } from 'pngjs';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { NewsAdminService } from './news-admin.service';
import { ArticleCreateDto, BannerCreateDto, TranslationDto } from './news.dto';

const ACTOR = 'system:demo';
const REASON = 'demo venue: news, notices and help articles on a fresh stack';

type Text = { title: string; summary: string; body: string };
/** The languages besides English that the demo articles are written in (the app's seven). */
const TRANSLATED = ['zh', 'hk', 'jp', 'kr', 'ty', 'py'] as const;
const ARTICLES: Array<{ category: string; pinned?: boolean; recommended?: boolean; daysAgo: number; en: Text } & Record<(typeof TRANSLATED)[number], Text>> = [
  {
    category: 'announcement',
    pinned: true,
    recommended: true,
    daysAgo: 0,
    en: {
      title: 'Kestrel Exchange is live: spot, contracts and options in one app',
      summary: 'Trade on a real order book with prices from our own trades.',
      body: 'Welcome to **Kestrel Exchange**.\n\n- Spot trading on a price-time order book\n- Leveraged contracts and up/down options\n- Wealth products, new coin subscriptions and NFTs\n\nEvery price you see comes from trades on this venue. Happy trading!',
    },
    zh: {
      title: 'Kestrel 交易所正式上线：现货、合约、期权一站式交易',
      summary: '真实订单簿撮合，价格来自本平台成交。',
      body: '欢迎来到 **Kestrel 交易所**。\n\n- 价格-时间优先的现货订单簿\n- 杠杆合约与涨跌期权\n- 理财、新币申购与 NFT\n\n您看到的每一个价格都来自本平台的真实成交。祝交易愉快！',
    },
    hk: {
      title: 'Kestrel 交易所正式上線：現貨、合約、期權一站式交易',
      summary: '真實訂單簿撮合，價格來自本平台成交。',
      body: '歡迎來到 **Kestrel 交易所**。\n\n- 價格-時間優先的現貨訂單簿\n- 槓桿合約與漲跌期權\n- 理財、新幣申購與 NFT\n\n您看到的每一個價格都來自本平台的真實成交。祝交易愉快！',
    },
    jp: {
      title: 'Kestrel Exchange 正式オープン：現物・先物・オプションをひとつのアプリで',
      summary: '実際の板で取引。価格はすべて当取引所の約定から。',
      body: '**Kestrel Exchange** へようこそ。\n\n- 価格・時間優先の現物オーダーブック\n- レバレッジ先物と上下オプション\n- 資産運用、新規コイン申込、NFT\n\n表示される価格はすべて当取引所での実際の約定によるものです。よい取引を！',
    },
    kr: {
      title: 'Kestrel 거래소 정식 오픈: 현물, 선물, 옵션을 하나의 앱에서',
      summary: '실제 오더북에서 거래하며, 모든 가격은 본 거래소의 체결에서 나옵니다.',
      body: '**Kestrel 거래소**에 오신 것을 환영합니다.\n\n- 가격·시간 우선 현물 오더북\n- 레버리지 선물과 상승/하락 옵션\n- 자산 운용, 신규 코인 청약, NFT\n\n보이는 모든 가격은 본 거래소의 실제 체결에서 나옵니다. 즐거운 거래 되세요!',
    },
    ty: {
      title: 'Kestrel Exchange เปิดให้บริการแล้ว: สปอต สัญญา และออปชันในแอปเดียว',
      summary: 'เทรดบนออร์เดอร์บุ๊กจริง ราคามาจากการซื้อขายบนแพลตฟอร์มของเรา',
      body: 'ยินดีต้อนรับสู่ **Kestrel Exchange**\n\n- การเทรดสปอตบนออร์เดอร์บุ๊กแบบราคา-เวลา\n- สัญญาแบบมีเลเวอเรจและออปชันขึ้น/ลง\n- ผลิตภัณฑ์การลงทุน การจองซื้อเหรียญใหม่ และ NFT\n\nทุกราคาที่คุณเห็นมาจากการซื้อขายจริงบนแพลตฟอร์มนี้ ขอให้เทรดอย่างมีความสุข!',
    },
    py: {
      title: 'A Kestrel Exchange está no ar: spot, contratos e opções em um só app',
      summary: 'Negocie em um livro de ofertas real, com preços das nossas próprias negociações.',
      body: 'Boas-vindas à **Kestrel Exchange**.\n\n- Negociação spot em um livro de ofertas com prioridade preço-tempo\n- Contratos alavancados e opções de alta/baixa\n- Produtos de investimento, subscrição de novas moedas e NFTs\n\nCada preço que você vê vem de negociações nesta plataforma. Bons negócios!',
    },
  },
  {
    category: 'announcement',
    recommended: true,
    daysAgo: 1,
    en: {
      title: 'Scheduled maintenance of USDT (TRC20) withdrawals',
      summary: 'Withdrawals on TRC20 pause for about 30 minutes during the wallet upgrade.',
      body: 'We will upgrade the TRC20 wallet service. During the upgrade **withdrawals on TRC20 pause for about 30 minutes**; deposits are credited after it ends.\n\nTrading is not affected. Thank you for your patience.',
    },
    zh: {
      title: 'USDT（TRC20）提现维护通知',
      summary: '钱包升级期间，TRC20 提现暂停约 30 分钟。',
      body: '我们将升级 TRC20 钱包服务。升级期间 **TRC20 提现暂停约 30 分钟**，充值将在升级完成后到账。\n\n交易不受影响，感谢您的耐心。',
    },
    hk: {
      title: 'USDT（TRC20）提現維護通知',
      summary: '錢包升級期間，TRC20 提現暫停約 30 分鐘。',
      body: '我們將升級 TRC20 錢包服務。升級期間 **TRC20 提現暫停約 30 分鐘**，充值將在升級完成後到賬。\n\n交易不受影響，感謝您的耐心。',
    },
    jp: {
      title: 'USDT（TRC20）出金メンテナンスのお知らせ',
      summary: 'ウォレットのアップグレード中、TRC20 の出金を約30分停止します。',
      body: 'TRC20 ウォレットサービスをアップグレードします。アップグレード中は **TRC20 の出金を約30分停止します**。入金はアップグレード完了後に反映されます。\n\n取引には影響ありません。ご理解のほどよろしくお願いいたします。',
    },
    kr: {
      title: 'USDT(TRC20) 출금 정기 점검 안내',
      summary: '지갑 업그레이드 중 TRC20 출금이 약 30분간 중단됩니다.',
      body: 'TRC20 지갑 서비스를 업그레이드합니다. 업그레이드 중에는 **TRC20 출금이 약 30분간 중단**되며, 입금은 업그레이드가 끝난 뒤 반영됩니다.\n\n거래에는 영향이 없습니다. 양해해 주셔서 감사합니다.',
    },
    ty: {
      title: 'ปิดปรับปรุงการถอน USDT (TRC20) ตามกำหนด',
      summary: 'ระหว่างอัปเกรดกระเป๋าเงิน การถอนผ่าน TRC20 จะหยุดชั่วคราวประมาณ 30 นาที',
      body: 'เราจะอัปเกรดบริการกระเป๋าเงิน TRC20 ระหว่างการอัปเกรด **การถอนผ่าน TRC20 จะหยุดชั่วคราวประมาณ 30 นาที** ยอดฝากจะเข้าบัญชีหลังการอัปเกรดเสร็จสิ้น\n\nการเทรดไม่ได้รับผลกระทบ ขอบคุณที่อดทนรอ',
    },
    py: {
      title: 'Manutenção programada dos saques de USDT (TRC20)',
      summary: 'Os saques em TRC20 ficam pausados por cerca de 30 minutos durante a atualização da carteira.',
      body: 'Vamos atualizar o serviço de carteira TRC20. Durante a atualização **os saques em TRC20 ficam pausados por cerca de 30 minutos**; os depósitos são creditados quando ela terminar.\n\nA negociação não é afetada. Obrigado pela paciência.',
    },
  },
  {
    category: 'announcement',
    daysAgo: 3,
    en: {
      title: 'Invite friends and earn a share of their trading fees',
      summary: 'Referral rebates are credited to your trade account every hour.',
      body: 'Share your invite link from **Invite friends**. When your friends trade spot, contracts or options, a share of the fees they pay is credited to you.\n\nRebates are settled every hour.',
    },
    zh: {
      title: '邀请好友，赚取交易手续费返佣',
      summary: '返佣每小时结算至您的币币账户。',
      body: '在 **邀请好友** 中分享您的邀请链接。好友交易现货、合约或期权时，其手续费的一部分将返还给您。\n\n返佣每小时结算一次。',
    },
    hk: {
      title: '邀請好友，賺取交易手續費返佣',
      summary: '返佣每小時結算至您的幣幣帳戶。',
      body: '在 **邀請好友** 中分享您的邀請連結。好友交易現貨、合約或期權時，其手續費的一部分將返還給您。\n\n返佣每小時結算一次。',
    },
    jp: {
      title: '友達を招待して取引手数料の一部を受け取ろう',
      summary: '紹介リベートは1時間ごとに取引口座へ入金されます。',
      body: '**友達を招待** から招待リンクを共有してください。友達が現物・先物・オプションを取引すると、支払った手数料の一部があなたに入金されます。\n\nリベートは1時間ごとに精算されます。',
    },
    kr: {
      title: '친구를 초대하고 거래 수수료의 일부를 받으세요',
      summary: '추천 리베이트는 매시간 거래 계정으로 지급됩니다.',
      body: '**친구 초대**에서 초대 링크를 공유하세요. 친구가 현물, 선물 또는 옵션을 거래하면 지불한 수수료의 일부가 회원님께 지급됩니다.\n\n리베이트는 매시간 정산됩니다.',
    },
    ty: {
      title: 'ชวนเพื่อนแล้วรับส่วนแบ่งค่าธรรมเนียมการเทรด',
      summary: 'เงินคืนจากการแนะนำจะเข้าบัญชีเทรดของคุณทุกชั่วโมง',
      body: 'แชร์ลิงก์เชิญของคุณจาก **ชวนเพื่อน** เมื่อเพื่อนของคุณเทรดสปอต สัญญา หรือออปชัน ส่วนหนึ่งของค่าธรรมเนียมที่พวกเขาจ่ายจะเข้าบัญชีของคุณ\n\nเงินคืนจะถูกชำระทุกชั่วโมง',
    },
    py: {
      title: 'Convide amigos e ganhe parte das taxas de negociação deles',
      summary: 'As comissões de indicação são creditadas na sua conta de negociação a cada hora.',
      body: 'Compartilhe seu link de convite em **Convidar amigos**. Quando seus amigos negociam spot, contratos ou opções, parte das taxas que eles pagam é creditada a você.\n\nAs comissões são liquidadas a cada hora.',
    },
  },
  {
    category: 'news',
    recommended: true,
    daysAgo: 2,
    en: {
      title: 'How options are settled: two recorded prices and your direction',
      summary: 'The result of an option is a pure function of the recorded price at purchase and at delivery.',
      body: 'Each option order stores the **price tick at purchase** and the **price tick at delivery**. If the delivery price is above the purchase price, *up* wins; below, *down* wins; equal returns the stake.\n\nYou can audit both ticks on the order.',
    },
    zh: {
      title: '期权如何结算：两笔记录价格与您选择的方向',
      summary: '期权结果只取决于买入时与交割时记录的价格。',
      body: '每笔期权订单都保存 **买入时的价格** 和 **交割时的价格**。交割价高于买入价则 *看涨* 获胜；低于则 *看跌* 获胜；相等则退还本金。\n\n您可以在订单中核对这两笔价格。',
    },
    hk: {
      title: '期權如何結算：兩筆記錄價格與您選擇的方向',
      summary: '期權結果只取決於買入時與交割時記錄的價格。',
      body: '每筆期權訂單都保存 **買入時的價格** 和 **交割時的價格**。交割價高於買入價則 *看漲* 獲勝；低於則 *看跌* 獲勝；相等則退還本金。\n\n您可以在訂單中核對這兩筆價格。',
    },
    jp: {
      title: 'オプションの決済方法：記録された2つの価格とあなたの方向',
      summary: 'オプションの結果は、購入時と受渡時に記録された価格だけで決まります。',
      body: '各オプション注文は **購入時の価格ティック** と **受渡時の価格ティック** を保存します。受渡価格が購入価格より高ければ *上昇* の勝ち、低ければ *下落* の勝ち、同じなら元本が返還されます。\n\n両方のティックは注文から確認できます。',
    },
    kr: {
      title: '옵션 정산 방식: 기록된 두 가격과 선택한 방향',
      summary: '옵션 결과는 매수 시점과 만기 시점에 기록된 가격만으로 결정됩니다.',
      body: '각 옵션 주문에는 **매수 시점의 가격 틱**과 **만기 시점의 가격 틱**이 저장됩니다. 만기 가격이 매수 가격보다 높으면 *상승*이, 낮으면 *하락*이 이기며, 같으면 원금이 반환됩니다.\n\n두 틱은 주문에서 확인할 수 있습니다.',
    },
    ty: {
      title: 'ออปชันชำระราคาอย่างไร: ราคาที่บันทึกสองจุดและทิศทางที่คุณเลือก',
      summary: 'ผลของออปชันขึ้นอยู่กับราคาที่บันทึกตอนซื้อและตอนส่งมอบเท่านั้น',
      body: 'แต่ละคำสั่งออปชันจะบันทึก **ราคา ณ ตอนซื้อ** และ **ราคา ณ ตอนส่งมอบ** หากราคาส่งมอบสูงกว่าราคาซื้อ ฝั่ง *ขึ้น* ชนะ หากต่ำกว่า ฝั่ง *ลง* ชนะ หากเท่ากันจะคืนเงินต้น\n\nคุณตรวจสอบราคาทั้งสองได้ในคำสั่ง',
    },
    py: {
      title: 'Como as opções são liquidadas: dois preços registrados e a sua direção',
      summary: 'O resultado de uma opção depende apenas do preço registrado na compra e na entrega.',
      body: 'Cada ordem de opção guarda o **tick de preço na compra** e o **tick de preço na entrega**. Se o preço de entrega for maior que o de compra, *alta* vence; se for menor, *baixa* vence; se for igual, o valor é devolvido.\n\nVocê pode conferir os dois ticks na ordem.',
    },
  },
  {
    category: 'faq',
    daysAgo: 5,
    en: {
      title: 'How do I deposit?',
      summary: 'Choose a coin and network, send to the address shown, then submit the amount and proof.',
      body: '1. Open **Assets → Deposit** and choose a coin and network.\n2. Send the coins to the address shown.\n3. Enter the amount, upload the transfer screenshot and submit.\n\nAn operator checks the transfer; you get a message when it is credited.',
    },
    zh: {
      title: '如何充值？',
      summary: '选择币种和网络，转账至显示的地址，然后提交金额与凭证。',
      body: '1. 打开 **资产 → 充值**，选择币种和网络。\n2. 将币转至显示的地址。\n3. 填写金额、上传转账截图并提交。\n\n运营人员核对后到账，您会收到一条消息。',
    },
    hk: {
      title: '如何充值？',
      summary: '選擇幣種和網絡，轉賬至顯示的地址，然後提交金額與憑證。',
      body: '1. 打開 **資產 → 充值**，選擇幣種和網絡。\n2. 將幣轉至顯示的地址。\n3. 填寫金額、上傳轉賬截圖並提交。\n\n運營人員核對後到賬，您會收到一條消息。',
    },
    jp: {
      title: '入金方法は？',
      summary: 'コインとネットワークを選び、表示されたアドレスに送金してから、金額と証明を提出します。',
      body: '1. **資産 → 入金** を開き、コインとネットワークを選びます。\n2. 表示されたアドレスにコインを送ります。\n3. 金額を入力し、送金のスクリーンショットをアップロードして提出します。\n\n担当者が送金を確認し、入金されるとメッセージが届きます。',
    },
    kr: {
      title: '입금은 어떻게 하나요?',
      summary: '코인과 네트워크를 선택하고 표시된 주소로 보낸 뒤 금액과 증빙을 제출하세요.',
      body: '1. **자산 → 입금**을 열고 코인과 네트워크를 선택합니다.\n2. 표시된 주소로 코인을 보냅니다.\n3. 금액을 입력하고 송금 스크린샷을 업로드한 뒤 제출합니다.\n\n운영자가 송금을 확인하며, 입금되면 메시지를 받게 됩니다.',
    },
    ty: {
      title: 'ฝากเงินอย่างไร?',
      summary: 'เลือกเหรียญและเครือข่าย โอนไปยังที่อยู่ที่แสดง แล้วส่งจำนวนเงินพร้อมหลักฐาน',
      body: '1. เปิด **สินทรัพย์ → ฝาก** แล้วเลือกเหรียญและเครือข่าย\n2. โอนเหรียญไปยังที่อยู่ที่แสดง\n3. กรอกจำนวน อัปโหลดภาพหน้าจอการโอน แล้วกดส่ง\n\nเจ้าหน้าที่จะตรวจสอบการโอน และคุณจะได้รับข้อความเมื่อยอดเข้าบัญชี',
    },
    py: {
      title: 'Como faço um depósito?',
      summary: 'Escolha a moeda e a rede, envie para o endereço exibido e depois informe o valor e o comprovante.',
      body: '1. Abra **Ativos → Depositar** e escolha a moeda e a rede.\n2. Envie as moedas para o endereço exibido.\n3. Informe o valor, envie a captura de tela da transferência e confirme.\n\nUm operador confere a transferência; você recebe uma mensagem quando o valor for creditado.',
    },
  },
  {
    category: 'faq',
    daysAgo: 5,
    en: {
      title: 'Why was my withdrawal rejected?',
      summary: 'The message in Notices tells you the reason; the frozen amount is returned at once.',
      body: 'When an operator rejects a withdrawal, **the whole frozen amount returns to your available balance** and a message in **Notices → Messages** tells you the reason.\n\nCheck the address and network, then submit again.',
    },
    zh: {
      title: '为什么我的提现被拒绝？',
      summary: '通知中的消息会说明原因，冻结金额立即退回。',
      body: '运营人员拒绝提现时，**冻结的金额会全部退回可用余额**，并在 **通知 → 消息** 中说明原因。\n\n请核对地址与网络后重新提交。',
    },
    hk: {
      title: '為什麼我的提現被拒絕？',
      summary: '通知中的消息會說明原因，凍結金額立即退回。',
      body: '運營人員拒絕提現時，**凍結的金額會全部退回可用餘額**，並在 **通知 → 消息** 中說明原因。\n\n請核對地址與網絡後重新提交。',
    },
    jp: {
      title: '出金が拒否されたのはなぜですか？',
      summary: 'お知らせのメッセージに理由が記載されています。凍結された金額はすぐに戻ります。',
      body: '担当者が出金を拒否すると、**凍結された金額はすべて利用可能残高に戻り**、**お知らせ → メッセージ** に理由が届きます。\n\nアドレスとネットワークを確認して、もう一度申請してください。',
    },
    kr: {
      title: '출금이 거절된 이유는 무엇인가요?',
      summary: '알림의 메시지에서 사유를 확인할 수 있으며, 동결된 금액은 즉시 반환됩니다.',
      body: '운영자가 출금을 거절하면 **동결된 금액 전체가 사용 가능 잔액으로 돌아오며**, **알림 → 메시지**에서 사유를 알려 드립니다.\n\n주소와 네트워크를 확인한 뒤 다시 신청하세요.',
    },
    ty: {
      title: 'ทำไมการถอนของฉันถูกปฏิเสธ?',
      summary: 'ข้อความในประกาศจะบอกเหตุผล และยอดที่ถูกอายัดจะคืนทันที',
      body: 'เมื่อเจ้าหน้าที่ปฏิเสธการถอน **ยอดที่ถูกอายัดทั้งหมดจะกลับเข้าสู่ยอดคงเหลือที่ใช้ได้** และจะมีข้อความใน **ประกาศ → ข้อความ** แจ้งเหตุผล\n\nตรวจสอบที่อยู่และเครือข่าย แล้วส่งคำขออีกครั้ง',
    },
    py: {
      title: 'Por que meu saque foi recusado?',
      summary: 'A mensagem em Avisos informa o motivo; o valor congelado é devolvido na hora.',
      body: 'Quando um operador recusa um saque, **todo o valor congelado volta para o seu saldo disponível** e uma mensagem em **Avisos → Mensagens** informa o motivo.\n\nConfira o endereço e a rede e envie novamente.',
    },
  },
  {
    category: 'faq',
    daysAgo: 6,
    en: {
      title: 'How long does identity verification take?',
      summary: 'Usually within one working day.',
      body: 'Basic verification needs your name and ID number; advanced verification needs photos of your ID. Operators usually review **within one working day** and you receive a message with the result.',
    },
    zh: {
      title: '身份认证需要多久？',
      summary: '通常在一个工作日内完成。',
      body: '初级认证需要姓名和证件号码；高级认证需要证件照片。运营人员通常在 **一个工作日内** 审核，结果会以消息通知您。',
    },
    hk: {
      title: '身份認證需要多久？',
      summary: '通常在一個工作日內完成。',
      body: '初級認證需要姓名和證件號碼；高級認證需要證件照片。運營人員通常在 **一個工作日內** 審核，結果會以消息通知您。',
    },
    jp: {
      title: '本人確認にはどのくらいかかりますか？',
      summary: '通常は1営業日以内です。',
      body: '基本認証には氏名と身分証番号が、上級認証には身分証の写真が必要です。担当者は通常 **1営業日以内** に審査し、結果をメッセージでお知らせします。',
    },
    kr: {
      title: '본인 인증은 얼마나 걸리나요?',
      summary: '보통 영업일 기준 하루 이내입니다.',
      body: '기본 인증에는 이름과 신분증 번호가, 고급 인증에는 신분증 사진이 필요합니다. 운영자는 보통 **영업일 기준 하루 이내**에 심사하며 결과를 메시지로 알려 드립니다.',
    },
    ty: {
      title: 'การยืนยันตัวตนใช้เวลานานเท่าไร?',
      summary: 'โดยปกติภายในหนึ่งวันทำการ',
      body: 'การยืนยันขั้นพื้นฐานต้องใช้ชื่อและเลขบัตรประจำตัว การยืนยันขั้นสูงต้องใช้รูปถ่ายบัตร เจ้าหน้าที่มักตรวจสอบ **ภายในหนึ่งวันทำการ** และคุณจะได้รับข้อความแจ้งผล',
    },
    py: {
      title: 'Quanto tempo leva a verificação de identidade?',
      summary: 'Normalmente em até um dia útil.',
      body: 'A verificação básica pede seu nome e número de documento; a avançada pede fotos do documento. Os operadores costumam analisar **em até um dia útil** e você recebe uma mensagem com o resultado.',
    },
  },
];

const BANNERS: Array<{ hue: number; titles: Record<string, string>; link_type: 'route' | 'article'; link: string | number }> = [
  { hue: 215, titles: { en: 'Kestrel Exchange is live', zh: 'Kestrel 交易所正式上线', hk: 'Kestrel 交易所正式上線', jp: 'Kestrel Exchange 正式オープン', kr: 'Kestrel 거래소 정식 오픈', ty: 'Kestrel Exchange เปิดให้บริการแล้ว', py: 'A Kestrel Exchange está no ar' }, link_type: 'article', link: 0 },
  { hue: 160, titles: { en: 'Invite friends, earn rebates', zh: '邀请好友，赚取返佣', hk: '邀請好友，賺取返佣', jp: '友達を招待してリベートを獲得', kr: '친구 초대하고 리베이트 받기', ty: 'ชวนเพื่อน รับเงินคืน', py: 'Convide amigos e ganhe comissões' }, link_type: 'route', link: '/pages/promotion/index' },
  { hue: 35, titles: { en: 'Up/down options: settle in minutes', zh: '涨跌期权：分钟级交割', hk: '漲跌期權：分鐘級交割', jp: '上下オプション：数分で決済', kr: '상승/하락 옵션: 몇 분 만에 정산', ty: 'ออปชันขึ้น/ลง: ชำระผลในไม่กี่นาที', py: 'Opções de alta/baixa: liquidação em minutos' }, link_type: 'route', link: '/pages/option/index' },
];

/** A 750×300 banner background: a diagonal gradient with soft circles (no text: the app overlays the title). */
export function bannerArtwork(hue: number, width = 750, height = 300): Buffer {
  const png = new PNG({ width, height });
  const circles = [
    [0.78, 0.3, 0.28],
    [0.9, 0.85, 0.2],
    [0.62, 0.95, 0.14],
  ];
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const t = (x / width) * 0.6 + (y / height) * 0.4;
      let l = 0.28 + 0.22 * t;
      for (const [cx, cy, r] of circles) {
        const d = Math.hypot(x / width - cx, (y / height - cy) * (height / width));
        if (d < r) l += 0.08 * (1 - d / r);
      }
      const [R, G, B] = hsl(hue + 25 * t, 0.65, Math.min(l, 0.8));
      const i = (y * width + x) * 4;
      png.data[i] = R;
      png.data[i + 1] = G;
      png.data[i + 2] = B;
      png.data[i + 3] = 255;
    }
  return PNG.sync.write(png);
}

function hsl(h: number, s: number, l: number): [number, number, number] {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [Math.round(255 * f(0)), Math.round(255 * f(8)), Math.round(255 * f(4))];
}

/**
 * The demo venue (MARKET_SIMULATOR on, as `npm start` runs) opens with announcements, news,
 * help-centre FAQ and three home banners, in the app's seven languages, written once on a database
 * without articles through the operator's own path (same rules and events, actor `system:demo`).
 */
@Injectable()
export class NewsDemoService implements OnApplicationBootstrap {
  private readonly logger = new Logger('NewsDemo');

  constructor(
    private readonly dataSource: DataSource,
    private readonly admin: NewsAdminService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.marketSimulator) return;
    await this.seed().catch((err: unknown) => this.logger.warn({ err }, 'demo news not created'));
  }

  async seed(): Promise<void> {
    // One process seeds (an advisory lock), and only a database without articles.
    await this.dataSource.transaction(async (m) => {
      const [{ locked }] = await m.query('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked', ['news-demo']);
      if (!locked) return;
      const [{ n }] = await m.query('SELECT COUNT(*)::int AS n FROM news_articles');
      if (n > 0) return;
      const categories: Array<{ id: number; code: string }> = await m.query('SELECT id, code FROM news_categories');
      const ids = new Map(categories.map((c) => [c.code, c.id]));
      const created: number[] = [];
      for (const a of ARTICLES) {
        const categoryId = ids.get(a.category);
        if (!categoryId) continue;
        const published = new Date(Date.now() - a.daysAgo * 86_400_000 - 60_000).toISOString();
        const art = await this.admin.createArticle(
          ACTOR,
          plainToInstance(ArticleCreateDto, {
            category_id: categoryId,
            lang: 'en',
            ...a.en,
            published_at: published,
            pinned: !!a.pinned,
            recommended: !!a.recommended,
            reason: REASON,
          }),
        );
        for (const lang of TRANSLATED) await this.admin.setTranslation(ACTOR, art.id, plainToInstance(TranslationDto, { lang, ...a[lang], reason: REASON }));
        created.push(art.id);
      }
      for (const [i, b] of BANNERS.entries()) {
        const bytes = bannerArtwork(b.hue);
        const image = await this.admin.uploadImage({ fieldname: 'file', size: bytes.length, buffer: bytes });
        await this.admin.createBanner(
          ACTOR,
          plainToInstance(BannerCreateDto, {
            image_id: image.id,
            titles: b.titles,
            link_type: b.link_type,
            link: b.link_type === 'article' ? String(created[Number(b.link)]) : b.link,
            sort: i + 1,
            reason: REASON,
          }),
        );
      }
      this.logger.log(`demo news: ${created.length} articles, ${BANNERS.length} banners`);
    });
  }
}
