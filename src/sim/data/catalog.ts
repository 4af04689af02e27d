/**
 * The simulated universe. Names are real-world brands so demos feel familiar; every number
 * attached to them is generated and every response says so.
 *
 * Quality is a hint for generation: 0 (collapsed) to 1 (best in class). Some entries carry
 * traits that reproduce the awkward cases people hit with the real service.
 */
export interface ProjectSeed {
  slug: string;
  name: string;
  ticker: string;
  category: string;
  chains: string[];
  quality: number;
  launched: string;
  traits?: ProjectTrait[];
}

export type ProjectTrait =
  | 'clean' // red flags: none_identified
  | 'flagged' // always carries red flags
  | 'empty-voice' // Proof of Voice lists: none_identified
  | 'jurisdiction-not-returned'
  | 'jurisdiction-empty'
  | 'edge-top' // scores pinned at 100
  | 'edge-bottom'; // scores pinned at 0

export interface ExchangeSeed {
  slug: string;
  name: string;
  country: string;
  established: number;
  quality: number;
  /** Exchanges without proof of reserves publish no liabilities/reserves history. */
  proofOfReserves: boolean;
  kind?: 'cex' | 'dex';
}

export const PROJECTS: readonly ProjectSeed[] = [
  { slug: 'bitcoin', name: 'Bitcoin', ticker: 'BTC', category: 'Layer 1', chains: ['Bitcoin'], quality: 0.95, launched: '2009-01-03', traits: ['clean'] },
  { slug: 'ethereum', name: 'Ethereum', ticker: 'ETH', category: 'Layer 1', chains: ['Ethereum'], quality: 0.93, launched: '2015-07-30', traits: ['clean', 'edge-top'] },
  { slug: 'bitcoin-cash', name: 'Bitcoin Cash', ticker: 'BCH', category: 'Layer 1', chains: ['Bitcoin Cash'], quality: 0.62, launched: '2017-08-01' },
  { slug: 'bitcoin-sv', name: 'Bitcoin SV', ticker: 'BSV', category: 'Layer 1', chains: ['Bitcoin SV'], quality: 0.38, launched: '2018-11-15', traits: ['flagged'] },
  { slug: 'solana', name: 'Solana', ticker: 'SOL', category: 'Layer 1', chains: ['Solana'], quality: 0.8, launched: '2020-03-16' },
  { slug: 'bnb', name: 'BNB', ticker: 'BNB', category: 'Exchange token', chains: ['BNB Chain'], quality: 0.72, launched: '2017-07-08' },
  { slug: 'xrp', name: 'XRP', ticker: 'XRP', category: 'Payments', chains: ['XRP Ledger'], quality: 0.7, launched: '2012-06-02' },
  { slug: 'cardano', name: 'Cardano', ticker: 'ADA', category: 'Layer 1', chains: ['Cardano'], quality: 0.76, launched: '2017-09-29' },
  { slug: 'dogecoin', name: 'Dogecoin', ticker: 'DOGE', category: 'Meme', chains: ['Dogecoin'], quality: 0.55, launched: '2013-12-06' },
  { slug: 'tron', name: 'Tron', ticker: 'TRX', category: 'Layer 1', chains: ['Tron'], quality: 0.5, launched: '2017-09-13', traits: ['flagged'] },
  { slug: 'avalanche', name: 'Avalanche', ticker: 'AVAX', category: 'Layer 1', chains: ['Avalanche'], quality: 0.78, launched: '2020-09-21' },
  { slug: 'polkadot', name: 'Polkadot', ticker: 'DOT', category: 'Layer 0', chains: ['Polkadot'], quality: 0.74, launched: '2020-05-26' },
  { slug: 'chainlink', name: 'Chainlink', ticker: 'LINK', category: 'Oracle', chains: ['Ethereum'], quality: 0.84, launched: '2017-09-19' },
  { slug: 'polygon', name: 'Polygon', ticker: 'POL', category: 'Layer 2', chains: ['Ethereum', 'Polygon'], quality: 0.75, launched: '2019-04-28' },
  { slug: 'polygon-zkevm', name: 'Polygon zkEVM', ticker: 'ZKEVM', category: 'Layer 2', chains: ['Ethereum'], quality: 0.6, launched: '2023-03-27' },
  { slug: 'shiba-inu', name: 'Shiba Inu', ticker: 'SHIB', category: 'Meme', chains: ['Ethereum'], quality: 0.42, launched: '2020-08-01', traits: ['flagged'] },
  { slug: 'shibaswap', name: 'ShibaSwap', ticker: 'BONE', category: 'DeFi', chains: ['Ethereum'], quality: 0.35, launched: '2021-07-06', traits: ['empty-voice'] },
  { slug: 'litecoin', name: 'Litecoin', ticker: 'LTC', category: 'Payments', chains: ['Litecoin'], quality: 0.7, launched: '2011-10-07', traits: ['clean'] },
  { slug: 'uniswap', name: 'Uniswap', ticker: 'UNI', category: 'DeFi', chains: ['Ethereum', 'Arbitrum', 'Base'], quality: 0.82, launched: '2018-11-02' },
  { slug: 'sushiswap', name: 'SushiSwap', ticker: 'SUSHI', category: 'DeFi', chains: ['Ethereum', 'Arbitrum'], quality: 0.48, launched: '2020-08-28', traits: ['flagged'] },
  { slug: 'pancakeswap', name: 'PancakeSwap', ticker: 'CAKE', category: 'DeFi', chains: ['BNB Chain'], quality: 0.6, launched: '2020-09-20' },
  { slug: 'aave', name: 'Aave', ticker: 'AAVE', category: 'DeFi', chains: ['Ethereum', 'Polygon', 'Arbitrum'], quality: 0.86, launched: '2017-11-25', traits: ['clean'] },
  { slug: 'compound', name: 'Compound', ticker: 'COMP', category: 'DeFi', chains: ['Ethereum'], quality: 0.72, launched: '2018-09-27' },
  { slug: 'maker', name: 'Maker', ticker: 'MKR', category: 'DeFi', chains: ['Ethereum'], quality: 0.8, launched: '2017-12-18' },
  { slug: 'lido-dao', name: 'Lido DAO', ticker: 'LDO', category: 'Liquid staking', chains: ['Ethereum'], quality: 0.74, launched: '2020-12-17' },
  { slug: 'lido-staked-ether', name: 'Lido Staked Ether', ticker: 'STETH', category: 'Liquid staking', chains: ['Ethereum'], quality: 0.77, launched: '2020-12-18' },
  { slug: 'curve-dao', name: 'Curve DAO', ticker: 'CRV', category: 'DeFi', chains: ['Ethereum'], quality: 0.6, launched: '2020-08-13', traits: ['flagged'] },
  { slug: 'arbitrum', name: 'Arbitrum', ticker: 'ARB', category: 'Layer 2', chains: ['Ethereum', 'Arbitrum'], quality: 0.76, launched: '2021-08-31' },
  { slug: 'optimism', name: 'Optimism', ticker: 'OP', category: 'Layer 2', chains: ['Ethereum', 'Optimism'], quality: 0.75, launched: '2021-12-16' },
  { slug: 'near-protocol', name: 'Near Protocol', ticker: 'NEAR', category: 'Layer 1', chains: ['Near'], quality: 0.7, launched: '2020-04-22' },
  { slug: 'cosmos-hub', name: 'Cosmos Hub', ticker: 'ATOM', category: 'Layer 0', chains: ['Cosmos'], quality: 0.71, launched: '2019-03-13' },
  { slug: 'internet-computer', name: 'Internet Computer', ticker: 'ICP', category: 'Layer 1', chains: ['Internet Computer'], quality: 0.58, launched: '2021-05-10' },
  { slug: 'aptos', name: 'Aptos', ticker: 'APT', category: 'Layer 1', chains: ['Aptos'], quality: 0.66, launched: '2022-10-17' },
  { slug: 'sui', name: 'Sui', ticker: 'SUI', category: 'Layer 1', chains: ['Sui'], quality: 0.65, launched: '2023-05-03' },
  { slug: 'stellar', name: 'Stellar', ticker: 'XLM', category: 'Payments', chains: ['Stellar'], quality: 0.72, launched: '2014-07-31' },
  { slug: 'monero', name: 'Monero', ticker: 'XMR', category: 'Privacy', chains: ['Monero'], quality: 0.52, launched: '2014-04-18', traits: ['jurisdiction-not-returned'] },
  { slug: 'ethereum-classic', name: 'Ethereum Classic', ticker: 'ETC', category: 'Layer 1', chains: ['Ethereum Classic'], quality: 0.5, launched: '2016-07-20' },
  { slug: 'filecoin', name: 'Filecoin', ticker: 'FIL', category: 'Storage', chains: ['Filecoin'], quality: 0.6, launched: '2020-10-15' },
  { slug: 'hedera', name: 'Hedera', ticker: 'HBAR', category: 'Layer 1', chains: ['Hedera'], quality: 0.7, launched: '2019-09-16' },
  { slug: 'vechain', name: 'VeChain', ticker: 'VET', category: 'Supply chain', chains: ['VeChain'], quality: 0.58, launched: '2018-06-30' },
  { slug: 'algorand', name: 'Algorand', ticker: 'ALGO', category: 'Layer 1', chains: ['Algorand'], quality: 0.68, launched: '2019-06-19' },
  { slug: 'the-graph', name: 'The Graph', ticker: 'GRT', category: 'Infrastructure', chains: ['Ethereum', 'Arbitrum'], quality: 0.69, launched: '2020-12-17' },
  { slug: 'render', name: 'Render', ticker: 'RENDER', category: 'AI', chains: ['Solana'], quality: 0.63, launched: '2017-10-05' },
  { slug: 'injective', name: 'Injective', ticker: 'INJ', category: 'DeFi', chains: ['Injective'], quality: 0.62, launched: '2020-10-21' },
  { slug: 'celestia', name: 'Celestia', ticker: 'TIA', category: 'Modular', chains: ['Celestia'], quality: 0.64, launched: '2023-10-31' },
  { slug: 'stacks', name: 'Stacks', ticker: 'STX', category: 'Layer 2', chains: ['Bitcoin', 'Stacks'], quality: 0.6, launched: '2021-01-14' },
  { slug: 'immutable', name: 'Immutable', ticker: 'IMX', category: 'Gaming', chains: ['Ethereum'], quality: 0.61, launched: '2021-11-05' },
  { slug: 'fantom', name: 'Fantom', ticker: 'FTM', category: 'Layer 1', chains: ['Fantom'], quality: 0.45, launched: '2018-06-15', traits: ['empty-voice'] },
  { slug: 'tezos', name: 'Tezos', ticker: 'XTZ', category: 'Layer 1', chains: ['Tezos'], quality: 0.66, launched: '2018-06-30', traits: ['jurisdiction-empty'] },
  { slug: 'theta-network', name: 'Theta Network', ticker: 'THETA', category: 'Media', chains: ['Theta'], quality: 0.5, launched: '2019-03-15' },
  { slug: 'axie-infinity', name: 'Axie Infinity', ticker: 'AXS', category: 'Gaming', chains: ['Ronin'], quality: 0.4, launched: '2020-11-04', traits: ['flagged'] },
  { slug: 'the-sandbox', name: 'The Sandbox', ticker: 'SAND', category: 'Gaming', chains: ['Ethereum', 'Polygon'], quality: 0.5, launched: '2020-08-14' },
  { slug: 'decentraland', name: 'Decentraland', ticker: 'MANA', category: 'Gaming', chains: ['Ethereum'], quality: 0.52, launched: '2017-09-08' },
  { slug: 'apecoin', name: 'ApeCoin', ticker: 'APE', category: 'Meme', chains: ['Ethereum'], quality: 0.38, launched: '2022-03-17', traits: ['flagged'] },
  { slug: 'pepe', name: 'Pepe', ticker: 'PEPE', category: 'Meme', chains: ['Ethereum'], quality: 0.3, launched: '2023-04-17', traits: ['flagged', 'jurisdiction-not-returned'] },
  { slug: 'bonk', name: 'Bonk', ticker: 'BONK', category: 'Meme', chains: ['Solana'], quality: 0.33, launched: '2022-12-25', traits: ['empty-voice'] },
  { slug: 'dogwifhat', name: 'dogwifhat', ticker: 'WIF', category: 'Meme', chains: ['Solana'], quality: 0.28, launched: '2023-11-20', traits: ['flagged'] },
  { slug: 'terra', name: 'Terra', ticker: 'LUNA', category: 'Layer 1', chains: ['Terra'], quality: 0.3, launched: '2022-05-28', traits: ['flagged'] },
  { slug: 'terra-classic', name: 'Terra Classic', ticker: 'LUNC', category: 'Layer 1', chains: ['Terra Classic'], quality: 0.02, launched: '2019-04-24', traits: ['flagged', 'edge-bottom', 'jurisdiction-not-returned'] },
  { slug: 'tether', name: 'Tether', ticker: 'USDT', category: 'Stablecoin', chains: ['Ethereum', 'Tron', 'Solana'], quality: 0.66, launched: '2014-10-06' },
  { slug: 'usd-coin', name: 'USD Coin', ticker: 'USDC', category: 'Stablecoin', chains: ['Ethereum', 'Solana', 'Base'], quality: 0.88, launched: '2018-09-26', traits: ['clean'] },
  { slug: 'dai', name: 'Dai', ticker: 'DAI', category: 'Stablecoin', chains: ['Ethereum'], quality: 0.8, launched: '2017-12-18' },
  { slug: 'ethena', name: 'Ethena', ticker: 'ENA', category: 'DeFi', chains: ['Ethereum'], quality: 0.55, launched: '2024-04-02' },
  { slug: 'ethena-usde', name: 'Ethena USDe', ticker: 'USDE', category: 'Stablecoin', chains: ['Ethereum'], quality: 0.57, launched: '2024-02-19' },
  { slug: 'kaspa', name: 'Kaspa', ticker: 'KAS', category: 'Layer 1', chains: ['Kaspa'], quality: 0.56, launched: '2021-11-07', traits: ['empty-voice'] },
  { slug: 'toncoin', name: 'Toncoin', ticker: 'TON', category: 'Layer 1', chains: ['TON'], quality: 0.6, launched: '2021-08-26' },
  { slug: 'worldcoin', name: 'Worldcoin', ticker: 'WLD', category: 'Identity', chains: ['Optimism'], quality: 0.45, launched: '2023-07-24', traits: ['flagged'] },
  { slug: 'jupiter', name: 'Jupiter', ticker: 'JUP', category: 'DeFi', chains: ['Solana'], quality: 0.62, launched: '2024-01-31' },
  { slug: 'pendle', name: 'Pendle', ticker: 'PENDLE', category: 'DeFi', chains: ['Ethereum', 'Arbitrum'], quality: 0.64, launched: '2021-04-28' },
  { slug: 'gmx', name: 'GMX', ticker: 'GMX', category: 'DeFi', chains: ['Arbitrum', 'Avalanche'], quality: 0.63, launched: '2021-09-01' },
  { slug: 'dydx', name: 'dYdX', ticker: 'DYDX', category: 'DeFi', chains: ['dYdX Chain'], quality: 0.66, launched: '2021-09-08' },
  { slug: 'cronos', name: 'Cronos', ticker: 'CRO', category: 'Exchange token', chains: ['Cronos'], quality: 0.57, launched: '2018-11-14' },
  { slug: 'kucoin-token', name: 'KuCoin Token', ticker: 'KCS', category: 'Exchange token', chains: ['KuCoin Community Chain'], quality: 0.5, launched: '2017-09-15' },
  { slug: 'okb', name: 'OKB', ticker: 'OKB', category: 'Exchange token', chains: ['Ethereum'], quality: 0.6, launched: '2019-04-30' },
  { slug: 'gatetoken', name: 'GateToken', ticker: 'GT', category: 'Exchange token', chains: ['GateChain'], quality: 0.48, launched: '2019-04-15' },
  { slug: 'creme-finance', name: 'Crème Finance', ticker: 'CREAM', category: 'DeFi', chains: ['Ethereum', 'BNB Chain'], quality: 0.2, launched: '2020-08-03', traits: ['flagged'] },
  { slug: 'zcash', name: 'Zcash', ticker: 'ZEC', category: 'Privacy', chains: ['Zcash'], quality: 0.6, launched: '2016-10-28' },
];

export const EXCHANGES: readonly ExchangeSeed[] = [
  { slug: 'binance', name: 'Binance', country: 'Seychelles', established: 2017, quality: 0.78, proofOfReserves: true },
  { slug: 'binance-us', name: 'Binance.US', country: 'United States', established: 2019, quality: 0.62, proofOfReserves: false },
  { slug: 'coinbase-exchange', name: 'Coinbase', country: 'United States', established: 2012, quality: 0.9, proofOfReserves: true },
  { slug: 'kraken', name: 'Kraken', country: 'United States', established: 2011, quality: 0.92, proofOfReserves: true },
  { slug: 'okx', name: 'OKX', country: 'Seychelles', established: 2017, quality: 0.76, proofOfReserves: true },
  { slug: 'bybit', name: 'Bybit', country: 'United Arab Emirates', established: 2018, quality: 0.7, proofOfReserves: true },
  { slug: 'kucoin', name: 'KuCoin', country: 'Seychelles', established: 2017, quality: 0.6, proofOfReserves: true },
  { slug: 'gate-io', name: 'Gate.io', country: 'Cayman Islands', established: 2013, quality: 0.62, proofOfReserves: true },
  { slug: 'huobi', name: 'HTX', country: 'Seychelles', established: 2013, quality: 0.45, proofOfReserves: true },
  { slug: 'bitfinex', name: 'Bitfinex', country: 'British Virgin Islands', established: 2012, quality: 0.6, proofOfReserves: false },
  { slug: 'bitstamp', name: 'Bitstamp', country: 'Luxembourg', established: 2011, quality: 0.85, proofOfReserves: false },
  { slug: 'gemini', name: 'Gemini', country: 'United States', established: 2014, quality: 0.86, proofOfReserves: false },
  { slug: 'crypto-com', name: 'Crypto.com Exchange', country: 'Singapore', established: 2016, quality: 0.72, proofOfReserves: true },
  { slug: 'bitget', name: 'Bitget', country: 'Seychelles', established: 2018, quality: 0.64, proofOfReserves: true },
  { slug: 'mexc-global', name: 'MEXC', country: 'Seychelles', established: 2018, quality: 0.48, proofOfReserves: true },
  { slug: 'upbit', name: 'Upbit', country: 'South Korea', established: 2017, quality: 0.74, proofOfReserves: false },
  { slug: 'bithumb', name: 'Bithumb', country: 'South Korea', established: 2014, quality: 0.58, proofOfReserves: false },
  { slug: 'bitso', name: 'Bitso', country: 'Mexico', established: 2014, quality: 0.66, proofOfReserves: false },
  { slug: 'bingx', name: 'BingX', country: 'Singapore', established: 2018, quality: 0.44, proofOfReserves: true },
  { slug: 'poloniex', name: 'Poloniex', country: 'Seychelles', established: 2014, quality: 0.3, proofOfReserves: false },
  { slug: 'bitmart', name: 'BitMart', country: 'Cayman Islands', established: 2017, quality: 0.32, proofOfReserves: false },
  { slug: 'lbank', name: 'LBank', country: 'British Virgin Islands', established: 2015, quality: 0.36, proofOfReserves: false },
  { slug: 'whitebit', name: 'WhiteBIT', country: 'Lithuania', established: 2018, quality: 0.63, proofOfReserves: true },
  { slug: 'deribit', name: 'Deribit', country: 'Panama', established: 2016, quality: 0.74, proofOfReserves: true },
  { slug: 'bitvavo', name: 'Bitvavo', country: 'Netherlands', established: 2018, quality: 0.8, proofOfReserves: true },
  { slug: 'bitpanda', name: 'Bitpanda', country: 'Austria', established: 2014, quality: 0.8, proofOfReserves: false },
  { slug: 'bitmex', name: 'BitMEX', country: 'Seychelles', established: 2014, quality: 0.55, proofOfReserves: true },
  { slug: 'phemex', name: 'Phemex', country: 'Singapore', established: 2019, quality: 0.42, proofOfReserves: true },
  { slug: 'bitflyer', name: 'bitFlyer', country: 'Japan', established: 2014, quality: 0.83, proofOfReserves: false },
  { slug: 'coinone', name: 'Coinone', country: 'South Korea', established: 2014, quality: 0.6, proofOfReserves: false },
  { slug: 'wazirx', name: 'WazirX', country: 'India', established: 2018, quality: 0.06, proofOfReserves: false },
  { slug: 'luno', name: 'Luno', country: 'United Kingdom', established: 2013, quality: 0.7, proofOfReserves: false },
  { slug: 'hyperliquid', name: 'Hyperliquid', country: 'Decentralized', established: 2023, quality: 0.6, proofOfReserves: true, kind: 'dex' },
  { slug: 'dydx', name: 'dYdX', country: 'Decentralized', established: 2019, quality: 0.66, proofOfReserves: true, kind: 'dex' },
  { slug: 'uniswap-v3', name: 'Uniswap v3', country: 'Decentralized', established: 2021, quality: 0.8, proofOfReserves: true, kind: 'dex' },
];

/** Tokens that exchanges list but that are not rated projects. */
export const EXTRA_TOKENS: readonly { name: string; ticker: string; category: string }[] = [
  { name: 'Floki', ticker: 'FLOKI', category: 'Meme' },
  { name: 'Fetch.ai', ticker: 'FET', category: 'AI' },
  { name: 'Bittensor', ticker: 'TAO', category: 'AI' },
  { name: 'Ondo', ticker: 'ONDO', category: 'Real-world assets' },
  { name: 'Mantle', ticker: 'MNT', category: 'Layer 2' },
  { name: 'Sei', ticker: 'SEI', category: 'Layer 1' },
  { name: 'Starknet', ticker: 'STRK', category: 'Layer 2' },
  { name: 'Arweave', ticker: 'AR', category: 'Storage' },
  { name: 'Gala', ticker: 'GALA', category: 'Gaming' },
  { name: 'Chiliz', ticker: 'CHZ', category: 'Fan tokens' },
  { name: 'Ethereum Name Service', ticker: 'ENS', category: 'Infrastructure' },
  { name: 'Lido Finance wstETH', ticker: 'WSTETH', category: 'Liquid staking' },
  { name: 'Wrapped Bitcoin', ticker: 'WBTC', category: 'Wrapped' },
  { name: 'First Digital USD', ticker: 'FDUSD', category: 'Stablecoin' },
  { name: 'Jasmy', ticker: 'JASMY', category: 'Infrastructure' },
];
