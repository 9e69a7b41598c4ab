// CSS imports in component tests: nothing to apply in jsdom.
module.exports = {};
