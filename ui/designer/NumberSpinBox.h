#pragma once
// A spin box for the topology's real numbers: it shows a value with six significant digits
// (1e-05, 0.05, 250000) and keeps it to full precision, where QDoubleSpinBox rounds every value
// to a fixed count of decimals: with 4, a learning rate of 1e-5 showed (and became) 0.0000.
#include <QDoubleSpinBox>

namespace hips {

class NumberSpinBox : public QDoubleSpinBox {
public:
    explicit NumberSpinBox(QWidget* parent = nullptr);

    QString textFromValue(double value) const override;
    double valueFromText(const QString& text) const override;
    QValidator::State validate(QString& text, int& pos) const override;
};

}  // namespace hips
