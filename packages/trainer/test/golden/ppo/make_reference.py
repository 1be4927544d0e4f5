#!/usr/bin/env python3
"""Reference losses and gradients of the PPO actor and critic updates, computed with PyTorch.

Run once with Debian's python3-torch (`/usr/bin/python3 make_reference.py`); it writes
reference.json beside itself, which `test/ppo-golden.test.ts` compares the trainer against without
Python. Everything here is written from the formulas (verl's compute_policy_loss / agg_loss /
kl_penalty / compute_value_loss), not from the TypeScript code:

- a Qwen2 decoder (RMSNorm, RoPE, grouped-query attention, SwiGLU, tied embeddings), checked first
  against Hugging Face transformers' logits in ../hf-qwen2-tiny;
- per-token log-probs and entropy at a sampling temperature (logits / T);
- the PPO term with clip-higher and dual clip, the four loss aggregations, KL k1/k3 in the loss and
  the entropy bonus; the clipped value loss of a critic with a linear value head.

Gradients are taken in float64 so that the reference's own rounding is far below the test's 1e-4.
"""
import json
import math
import os
import struct

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
HF_DIR = os.path.join(HERE, '..', 'hf-qwen2-tiny')
DT = torch.float64


def read_safetensors(path):
    with open(path, 'rb') as f:
        n = struct.unpack('<Q', f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, meta in header.items():
        if name == '__metadata__':
            continue
        assert meta['dtype'] == 'F32', meta['dtype']
        a, b = meta['data_offsets']
        t = torch.frombuffer(bytearray(data[a:b]), dtype=torch.float32).reshape(meta['shape'])
        out[name] = t.to(DT)
    return out


def rms_norm(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], dim=-1)


def hidden_states(cfg, w, ids):
    """Final hidden states [len, hidden] of one unpadded sequence."""
    nh, nkv = cfg['num_attention_heads'], cfg['num_key_value_heads']
    hd = cfg['hidden_size'] // nh
    n = len(ids)
    x = w['model.embed_tokens.weight'][torch.tensor(ids)]
    inv = 1.0 / (cfg['rope_theta'] ** (torch.arange(0, hd, 2, dtype=DT) / hd))
    freqs = torch.outer(torch.arange(n, dtype=DT), inv)
    cos, sin = torch.cat([freqs, freqs], -1).cos(), torch.cat([freqs, freqs], -1).sin()
    causal = torch.full((n, n), float('-inf'), dtype=DT).triu(1)
    for i in range(cfg['num_hidden_layers']):
        p = f'model.layers.{i}.'
        h = rms_norm(x, w[p + 'input_layernorm.weight'], cfg['rms_norm_eps'])
        q = (h @ w[p + 'self_attn.q_proj.weight'].T + w[p + 'self_attn.q_proj.bias']).view(n, nh, hd).transpose(0, 1)
        k = (h @ w[p + 'self_attn.k_proj.weight'].T + w[p + 'self_attn.k_proj.bias']).view(n, nkv, hd).transpose(0, 1)
        v = (h @ w[p + 'self_attn.v_proj.weight'].T + w[p + 'self_attn.v_proj.bias']).view(n, nkv, hd).transpose(0, 1)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(nh // nkv, 0), v.repeat_interleave(nh // nkv, 0)
        att = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(hd) + causal, -1)
        o = (att @ v).transpose(0, 1).reshape(n, nh * hd)
        x = x + o @ w[p + 'self_attn.o_proj.weight'].T
        h = rms_norm(x, w[p + 'post_attention_layernorm.weight'], cfg['rms_norm_eps'])
        gate = h @ w[p + 'mlp.gate_proj.weight'].T
        x = x + (torch.nn.functional.silu(gate) * (h @ w[p + 'mlp.up_proj.weight'].T)) @ w[p + 'mlp.down_proj.weight'].T
    return rms_norm(x, w['model.norm.weight'], cfg['rms_norm_eps'])


def logits_of(cfg, w, ids):
    return hidden_states(cfg, w, ids) @ w['model.embed_tokens.weight'].T


def check_against_transformers():
    cfg = json.load(open(os.path.join(HF_DIR, 'qwen2-tiny', 'config.json')))
    cfg.setdefault('rope_theta', (cfg.get('rope_parameters') or {}).get('rope_theta', 10000))
    w = read_safetensors(os.path.join(HF_DIR, 'qwen2-tiny', 'model.safetensors'))
    ref = json.load(open(os.path.join(HF_DIR, 'qwen2-tiny-reference.json')))
    worst = 0.0
    for row, want in zip(ref['input_ids'], ref['logits']):
        got = logits_of(cfg, w, row)
        worst = max(worst, (got - torch.tensor(want, dtype=DT)).abs().max().item())
    assert worst < 1e-4, f'the reference Qwen2 differs from transformers by {worst}'
    return worst


# --- the model and batch of the golden test ---------------------------------------------------

CONFIG = {
    'vocab_size': 48, 'hidden_size': 16, 'intermediate_size': 32, 'num_hidden_layers': 2,
    'num_attention_heads': 4, 'num_key_value_heads': 2, 'rope_theta': 10000.0, 'rms_norm_eps': 1e-6,
    'tie_word_embeddings': True, 'max_position_embeddings': 256,
}


def make_weights(g):
    c = CONFIG
    hd = c['hidden_size'] // c['num_attention_heads']
    shapes = {'model.embed_tokens.weight': [c['vocab_size'], c['hidden_size']]}
    for i in range(c['num_hidden_layers']):
        p = f'model.layers.{i}.'
        shapes.update({
            p + 'input_layernorm.weight': [c['hidden_size']],
            p + 'self_attn.q_proj.weight': [c['num_attention_heads'] * hd, c['hidden_size']],
            p + 'self_attn.q_proj.bias': [c['num_attention_heads'] * hd],
            p + 'self_attn.k_proj.weight': [c['num_key_value_heads'] * hd, c['hidden_size']],
            p + 'self_attn.k_proj.bias': [c['num_key_value_heads'] * hd],
            p + 'self_attn.v_proj.weight': [c['num_key_value_heads'] * hd, c['hidden_size']],
            p + 'self_attn.v_proj.bias': [c['num_key_value_heads'] * hd],
            p + 'self_attn.o_proj.weight': [c['hidden_size'], c['num_attention_heads'] * hd],
            p + 'post_attention_layernorm.weight': [c['hidden_size']],
            p + 'mlp.gate_proj.weight': [c['intermediate_size'], c['hidden_size']],
            p + 'mlp.up_proj.weight': [c['intermediate_size'], c['hidden_size']],
            p + 'mlp.down_proj.weight': [c['hidden_size'], c['intermediate_size']],
        })
    shapes['model.norm.weight'] = [c['hidden_size']]
    w = {}
    for name, shape in shapes.items():
        if name.endswith('norm.weight'):
            t = 1 + 0.1 * torch.randn(shape, generator=g, dtype=DT)
        elif name.endswith('bias'):
            t = 0.05 * torch.randn(shape, generator=g, dtype=DT)
        else:
            t = 0.3 * torch.randn(shape, generator=g, dtype=DT)
        # float32 values, so both sides start from the same weights
        w[name] = t.float().to(DT)
    return w


def make_batch(g):
    """Three rows: a prompt, a reply, an observation, a second reply; the third row has no trained token."""
    rows = []
    for n, spans in [(14, [(4, 8), (10, 13)]), (9, [(3, 8)]), (7, [])]:
        ids = torch.randint(1, CONFIG['vocab_size'], (n,), generator=g).tolist()
        mask = [0] * (n - 1)  # target space: position t scores token t + 1
        for a, b in spans:
            for t in range(a, b):
                mask[t - 1] = 1
        rows.append({'ids': ids, 'mask': mask})
    return rows


def token_logprobs(cfg, w, ids, temperature):
    logits = logits_of(cfg, w, ids)[:-1] / temperature
    logp = torch.log_softmax(logits, -1)
    picked = logp.gather(1, torch.tensor(ids[1:]).unsqueeze(1)).squeeze(1)
    entropy = -(logp.exp() * logp).sum(-1)
    return picked, entropy


def agg(per_row, masks, mode, scale):
    """verl's agg_loss over a mini-batch of rows (lists of [len] tensors)."""
    if mode == 'token-mean':
        return sum((l * m).sum() for l, m in zip(per_row, masks)) / sum(m.sum() for m in masks)
    if mode == 'seq-mean-token-sum-norm':
        return sum((l * m).sum() for l, m in zip(per_row, masks)) / scale
    valid = [(l, m) for l, m in zip(per_row, masks) if m.sum() > 0]
    if mode == 'seq-mean-token-mean':
        return sum((l * m).sum() / m.sum() for l, m in valid) / len(valid)
    if mode == 'seq-mean-token-sum':
        return sum((l * m).sum() for l, m in valid) / len(valid)
    raise ValueError(mode)


def kl(logp, ref, kind):
    if kind == 'k1':
        return logp - ref
    d = (ref - logp).clamp(-20, 20)
    return (d.exp() - d - 1).clamp(-10, 10)


def actor_loss(w, batch, s):
    masks = [torch.tensor(r['mask'], dtype=DT) for r in batch]
    scale = max(len(r['ids']) for r in batch) - 1
    pg_rows, ent_rows, kl_rows = [], [], []
    for r in batch:
        logp, ent = token_logprobs(CONFIG, w, r['ids'], s['temperature'])
        adv = torch.tensor(r['advantages'], dtype=DT)
        ratio = (logp - torch.tensor(r['oldLogProbs'], dtype=DT)).clamp(-20, 20).exp()
        loss = torch.maximum(-adv * ratio, -adv * ratio.clamp(1 - s['clipLow'], 1 + s['clipHigh']))
        if s['dualClip'] is not None:
            loss = torch.where(adv < 0, torch.minimum(loss, -adv * s['dualClip']), loss)
        pg_rows.append(loss)
        ent_rows.append(ent)
        if s['kl'] is not None:
            kl_rows.append(kl(logp, torch.tensor(r['refLogProbs'], dtype=DT), s['kl']['type']))
    total = agg(pg_rows, masks, s['lossAggMode'], scale) - s['entropyCoef'] * agg(ent_rows, masks, s['lossAggMode'], scale)
    if s['kl'] is not None:
        total = total + s['kl']['coef'] * agg(kl_rows, masks, s['lossAggMode'], scale)
    return total


def critic_loss(w, batch, clip):
    losses, masks = [], []
    for r in batch:
        v = (hidden_states(CONFIG, w, r['ids']) @ w['score.weight'].T + w['score.bias']).squeeze(1)[:-1]
        old, ret = torch.tensor(r['values'], dtype=DT), torch.tensor(r['returns'], dtype=DT)
        clipped = old + (v - old).clamp(-clip, clip)
        losses.append(0.5 * torch.maximum((v - ret) ** 2, (clipped - ret) ** 2))
        masks.append(torch.tensor(r['mask'], dtype=DT))
    return agg(losses, masks, 'token-mean', None)


def rounded(t):
    # 9 significant digits: far below the test's tolerance, half the file
    return [float('%.9g' % x) for x in t.flatten().tolist()]


def grads_of(loss_fn, w):
    params = {k: v.clone().requires_grad_(True) for k, v in w.items()}
    loss = loss_fn(params)
    loss.backward()
    return loss.item(), {k: rounded(p.grad) for k, p in params.items()}


ACTOR_CASES = [
    ('token-mean, clip-higher, dual clip', {'lossAggMode': 'token-mean'}),
    ('seq-mean-token-mean', {'lossAggMode': 'seq-mean-token-mean'}),
    ('seq-mean-token-sum', {'lossAggMode': 'seq-mean-token-sum'}),
    ('seq-mean-token-sum-norm', {'lossAggMode': 'seq-mean-token-sum-norm'}),
    ('no dual clip, entropy bonus, temperature 0.7', {'dualClip': None, 'entropyCoef': 0.01, 'temperature': 0.7}),
    ('KL k1 in the loss', {'kl': {'type': 'k1', 'coef': 0.1}}),
    ('KL k3 in the loss, entropy bonus, seq-mean-token-mean', {'kl': {'type': 'k3', 'coef': 0.1}, 'entropyCoef': 0.01, 'lossAggMode': 'seq-mean-token-mean'}),
]
DEFAULTS = {'lossAggMode': 'token-mean', 'clipLow': 0.2, 'clipHigh': 0.28, 'dualClip': 3.0, 'entropyCoef': 0.0, 'kl': None, 'temperature': 1.0}


def main():
    hf_diff = check_against_transformers()
    g = torch.Generator().manual_seed(20261203)
    w = make_weights(g)
    batch = make_batch(g)
    for r in batch:
        logp, _ = token_logprobs(CONFIG, w, r['ids'], 1.0)
        n = len(r['mask'])
        # old and reference log-probs near the current ones, so that ratios fall inside and outside the clip band
        r['oldLogProbs'] = (logp.detach() + 0.4 * torch.randn(n, generator=g, dtype=DT)).float().tolist()
        r['refLogProbs'] = (logp.detach() + 0.3 * torch.randn(n, generator=g, dtype=DT)).float().tolist()
        adv = torch.randn(n, generator=g, dtype=DT) * torch.tensor(r['mask'], dtype=DT)
        # every third trained token: a negative advantage on a token whose probability rose 4.5-fold, where the dual clip acts
        old = torch.tensor(r['oldLogProbs'], dtype=DT)
        for t in [t for t in range(n) if r['mask'][t]][::3]:
            adv[t] = -abs(adv[t].item()) - 0.5
            old[t] = logp[t].item() - 1.5
        r['oldLogProbs'] = old.float().tolist()
        r['advantages'] = adv.float().tolist()
        r['values'] = (0.5 * torch.randn(n, generator=g, dtype=DT)).float().tolist()
        r['returns'] = (0.5 * torch.randn(n, generator=g, dtype=DT)).float().tolist()
    cases = []
    for name, over in ACTOR_CASES:
        s = {**DEFAULTS, **over}
        loss, grads = grads_of(lambda p: actor_loss(p, batch, s), w)
        cases.append({'name': name, 'settings': s, 'loss': loss, 'grads': grads})
    critic_w = {**w, 'score.weight': (0.3 * torch.randn(1, CONFIG['hidden_size'], generator=g, dtype=DT)).float().to(DT),
                'score.bias': (0.1 * torch.randn(1, generator=g, dtype=DT)).float().to(DT)}
    closs, cgrads = grads_of(lambda p: critic_loss(p, batch, 0.2), critic_w)
    out = {
        'about': 'Written by make_reference.py (PyTorch %s, float64); do not edit.' % torch.__version__,
        'qwen2CheckedAgainstTransformers': hf_diff,
        'config': CONFIG,
        'weights': {k: {'shape': list(v.shape), 'data': v.flatten().tolist()} for k, v in critic_w.items()},
        'batch': batch,
        'actor': cases,
        'critic': {'valueClip': 0.2, 'loss': closs, 'grads': cgrads},
    }
    path = os.path.join(HERE, 'reference.json')
    with open(path, 'w') as f:
        json.dump(out, f, separators=(',', ':'))
    print(f'wrote {path}: Qwen2 vs transformers max |Δlogit| {hf_diff:.2e}; {len(cases)} actor cases and the critic')


if __name__ == '__main__':
    main()
