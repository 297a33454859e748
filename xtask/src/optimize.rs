//! Numerical pieces of the fit: L-BFGS, the logistic and softmax functions, Platt scaling.
//! Sequential and in a fixed order, so the same data give the same bits.

pub use jev_preflight::scorer::local::model::sigmoid;

/// `ln(1 + e^z)` without overflow.
pub fn softplus(z: f64) -> f64 {
    if z > 30.0 { z } else { z.exp().ln_1p() }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Minimizes `f` (which writes its gradient) from `x0` with L-BFGS (memory 8, backtracking
/// Armijo line search); sequential and in a fixed order, so the result is reproducible.
pub fn lbfgs(
    mut x: Vec<f64>,
    iterations: usize,
    f: &dyn Fn(&[f64], &mut [f64]) -> f64,
) -> Vec<f64> {
    const M: usize = 8;
    let n = x.len();
    let mut g = vec![0.0; n];
    let mut fx = f(&x, &mut g);
    let mut s_hist: Vec<Vec<f64>> = Vec::new();
    let mut y_hist: Vec<Vec<f64>> = Vec::new();
    let mut g_new = vec![0.0; n];
    let mut x_new = vec![0.0; n];
    for _ in 0..iterations {
        let mut q = g.clone();
        let mut alphas = Vec::with_capacity(s_hist.len());
        for (s, yv) in s_hist.iter().zip(&y_hist).rev() {
            let rho = 1.0 / dot(yv, s);
            let a = rho * dot(s, &q);
            for (qi, yi) in q.iter_mut().zip(yv) {
                *qi -= a * yi;
            }
            alphas.push((a, rho));
        }
        let gamma = match (s_hist.last(), y_hist.last()) {
            (Some(s), Some(yv)) => dot(s, yv) / dot(yv, yv),
            _ => 1.0 / dot(&g, &g).sqrt().max(1e-12),
        };
        q.iter_mut().for_each(|v| *v *= gamma);
        for ((s, yv), (a, rho)) in s_hist.iter().zip(&y_hist).zip(alphas.into_iter().rev()) {
            let b = rho * dot(yv, &q);
            for (qi, si) in q.iter_mut().zip(s) {
                *qi += (a - b) * si;
            }
        }
        let slope = -dot(&g, &q);
        if slope >= 0.0 {
            break;
        }
        let mut step = 1.0;
        let mut f_new;
        loop {
            for i in 0..n {
                x_new[i] = x[i] - step * q[i];
            }
            f_new = f(&x_new, &mut g_new);
            if f_new <= fx + 1e-4 * step * slope || step < 1e-10 {
                break;
            }
            step *= 0.5;
        }
        let s: Vec<f64> = x_new.iter().zip(&x).map(|(a, b)| a - b).collect();
        let yv: Vec<f64> = g_new.iter().zip(&g).map(|(a, b)| a - b).collect();
        let converged = (fx - f_new).abs() < 1e-10 * fx.abs().max(1.0);
        x.copy_from_slice(&x_new);
        g.copy_from_slice(&g_new);
        fx = f_new;
        if dot(&s, &yv) > 1e-12 {
            s_hist.push(s);
            y_hist.push(yv);
            if s_hist.len() > M {
                s_hist.remove(0);
                y_hist.remove(0);
            }
        }
        if converged {
            break;
        }
    }
    x
}

/// Platt scaling: `(a, b)` minimizing the log loss of `sigmoid(a·z + b)` (Newton's method
/// with a small ridge, from `a = 1, b = 0`).
pub fn platt(z: &[f64], y: &[bool]) -> (f64, f64) {
    let (mut a, mut b) = (1.0, 0.0);
    for _ in 0..100 {
        let (mut ga, mut gb, mut haa, mut hab, mut hbb) = (0.0, 0.0, 1e-6, 0.0, 1e-6);
        for (&zi, &yi) in z.iter().zip(y) {
            let p = sigmoid(a * zi + b);
            let r = p - f64::from(u8::from(yi));
            ga += r * zi;
            gb += r;
            let h = p * (1.0 - p);
            haa += h * zi * zi;
            hab += h * zi;
            hbb += h;
        }
        let det = haa * hbb - hab * hab;
        if det.abs() < 1e-18 {
            break;
        }
        let da = (hbb * ga - hab * gb) / det;
        let db = (haa * gb - hab * ga) / det;
        a -= da;
        b -= db;
        if da.abs() < 1e-9 && db.abs() < 1e-9 {
            break;
        }
    }
    (a, b)
}
