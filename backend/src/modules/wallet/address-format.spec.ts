import { isValidAddress } from './address-format';

describe('withdrawal address formats', () => {
  it.each([
    ['BITCOIN', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
    ['BITCOIN', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'],
    ['BITCOIN', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
    ['BITCOIN', 'bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297'],
    ['OMNI', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
    ['TRC20', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
    ['ERC20', '0xdAC17F958D2ee523a2206206994597C13D831ec7'],
    ['BEP20', '0x55d398326f99059ff775485246999027b3197955'],
  ])('%s accepts %s', (chain, address) => expect(isValidAddress(chain, address)).toBe(true));

  it.each([
    ['BITCOIN', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb'], // checksum
    ['BITCOIN', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdx'], // checksum
    ['BITCOIN', 'BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ'], // upper case not accepted
    ['OMNI', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'], // Omni is legacy only
    ['TRC20', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u'], // checksum
    ['TRC20', '0xdAC17F958D2ee523a2206206994597C13D831ec7'],
    ['ERC20', '0xdAC17F958D2ee523a2206206994597C13D831ec'], // too short
    ['ERC20', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
    ['SOLANA', '0xdAC17F958D2ee523a2206206994597C13D831ec7'], // unknown chain
  ])('%s refuses %s', (chain, address) => expect(isValidAddress(chain, address)).toBe(false));
});
